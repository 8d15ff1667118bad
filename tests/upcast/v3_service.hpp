// The v3 "orders" service of the upcast tests (a ServiceHost on a SQLite file over an
// in-process transport) and the v1 fixture's data (tests/data/upcast/).
#pragma once

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <whizbang/host/service_host.hpp>
#include <whizbang/store/sqlite/sqlite_work_store.hpp>
#include <whizbang/store/store_inspector.hpp>
#include <whizbang/transport/in_process_transport.hpp>
#include <whizbang/transport/publish_strategy.hpp>

#include "v3/orders_v3.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace fixture {

inline const whizbang::Registry& v3_registry() {
  return whizbang::generated::whizbang_upcast_tests::registry();
}

inline std::filesystem::path data_dir() {
  return std::filesystem::path(WHIZBANG_TEST_DATA_DIR) / "upcast";
}

inline std::vector<std::string> v1_envelopes() {
  std::ifstream in(data_dir() / "envelopes_v1.jsonl");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

// The stream the v1 envelopes were published on (their hop's stream id).
inline whizbang::Uuid v1_stream() {
  rapidjson::Document document;
  document.Parse(v1_envelopes().at(0).c_str());
  auto parsed = whizbang::Uuid::parse(document["h"][0]["st"].GetString());
  EXPECT_TRUE(parsed.ok());
  return *parsed;
}

inline std::vector<whizbang::StoredEvent> stream_events(const std::string& db,
                                                        const whizbang::Uuid& stream) {
  auto inspector = whizbang::open_store_inspector(db);
  EXPECT_TRUE(inspector.ok()) << inspector.status();
  if (!inspector.ok()) return {};
  auto events = (*inspector)->read_stream(stream);
  EXPECT_TRUE(events.ok()) << events.status();
  return events.ok() ? *events : std::vector<whizbang::StoredEvent>{};
}

inline std::vector<std::string> ids_of_type(const std::vector<whizbang::StoredEvent>& events,
                                            std::string_view type) {
  std::vector<std::string> ids;
  for (const whizbang::StoredEvent& event : events) {
    if (event.event_type == type) ids.push_back(event.event_id.to_string());
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

// A v3 "orders" service on the SQLite file `db`, stepped with run_once().
class V3Service {
 public:
  explicit V3Service(const std::string& db) {
    whizbang::StoreOptions store_options;
    store_options.instance.service_name = "orders";
    auto opened = whizbang::SqliteWorkStore::open(db, store_options);
    EXPECT_TRUE(opened.ok()) << opened.status();
    store = *std::move(opened);
    services_.add<Seen>(seen);
    whizbang::HostOptions options;
    options.service_name = "orders";
    options.store = store.get();
    options.transport = &transport;
    auto created = whizbang::ServiceHost::create(v3_registry(), services_, std::move(options));
    EXPECT_TRUE(created.ok()) << created.status();
    host = *std::move(created);
    EXPECT_TRUE(host->subscribe().ok());
  }
  ~V3Service() {
    host.reset();
    store.reset();
  }

  void deliver(const std::string& envelope_json, const whizbang::MessageId& id) {
    const whizbang::MessageTypeInfo& type = whizbang::MessageTraits<OrderPlaced>::info();
    const whizbang::TransportMessage message{id, std::string(type.wire_name), envelope_json,
                                             v1_stream(), true};
    whizbang::TransportDestination destination;
    destination.address = whizbang::default_destination(type);
    destination.routing_key = whizbang::routing_key_for(type.wire_name);
    ASSERT_TRUE(transport.publish(destination, {&message, 1}).ok());
  }
  void run(int cycles) {
    for (int i = 0; i < cycles; ++i) ASSERT_TRUE(host->run_once().ok());
  }

  Seen seen;
  whizbang::InProcessTransport transport;
  std::unique_ptr<whizbang::SqliteWorkStore> store;
  std::unique_ptr<whizbang::ServiceHost> host;

 private:
  whizbang::ServiceRegistry services_;
};

}  // namespace fixture
