// One hosted service over the in-process transport, stepped by hand (run_once), for the
// two-service and deferred-publish tests.
#pragma once

#include <whizbang/host/service_host.hpp>
#include <whizbang/message/envelope_json.hpp>
#include <whizbang/store/memory_work_store.hpp>
#include <whizbang/store/store_reader.hpp>
#include <whizbang/transport/in_process_transport.hpp>

#include <functional>
#include <memory>
#include <string>

#include "fixture.hpp"

namespace lifecycle_test {

// One service: its store, its receptors' recorder and its host.
struct Service {
  Service(FireLog& log, whizbang::Transport& transport, std::string name,
          whizbang::GuardrailOptions guardrails = {},
          std::unique_ptr<whizbang::WorkStore> store_override = nullptr,
          std::function<void(whizbang::HostOptions&)> configure = nullptr)
      : recorder(log, name) {
    whizbang::StoreOptions store_options;
    store_options.instance.service_name = name;
    store = store_override ? std::move(store_override)
                           : std::make_unique<whizbang::MemoryWorkStore>(store_options);
    services.add<Recorder>(recorder);
    whizbang::HostOptions options;
    options.service_name = name;
    options.store = store.get();
    options.transport = &transport;
    options.guardrails = guardrails;
    if (configure) configure(options);
    auto created = whizbang::ServiceHost::create(test_registry(), services, std::move(options));
    EXPECT_TRUE(created.ok()) << created.status();
    host = *std::move(created);
    auto subscribed = host->subscribe();  // no threads: the tests step the workers
    EXPECT_TRUE(subscribed.ok()) << subscribed;
  }

  Recorder recorder;
  whizbang::ServiceRegistry services;
  std::unique_ptr<whizbang::WorkStore> store;
  std::unique_ptr<whizbang::ServiceHost> host;
};

// Steps both hosts until nothing moves.
inline void settle(Service& a, Service& b) {
  for (int i = 0; i < 10; ++i) {
    auto x = a.host->run_once();
    auto y = b.host->run_once();
    ASSERT_TRUE(x.ok()) << x.status();
    ASSERT_TRUE(y.ok()) << y.status();
  }
}

// The envelope stored in `service`'s outbox row for `id`, decoded.
inline absl::StatusOr<whizbang::Envelope> stored_outbox_envelope(Service& service,
                                                                 const whizbang::MessageId& id) {
  auto row = whizbang::reader_of(*service.store)->find_outbox_row(id);
  if (!row.ok()) return row.status();
  if (!row->has_value()) return absl::NotFoundError("no outbox row " + id.to_string());
  return whizbang::deserialize_envelope((*row)->message.envelope_json, [](std::string_view name) {
    return test_registry().find_message(name);
  });
}

}  // namespace lifecycle_test
