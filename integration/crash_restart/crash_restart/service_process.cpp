#include "crash_restart/service_process.hpp"

#include <unistd.h>

#include <chrono>

#include "crash_restart/fulfilment.hpp"
#include "crash_restart/own_tables.hpp"
#include "crash_restart/sales.hpp"
#include "crash_restart/store_location.hpp"
#include "whizbang/store/open_work_store.hpp"
#include "whizbang/transport/rabbitmq/rabbitmq_transport.hpp"

namespace crash_restart {
namespace {

// Short leases: a killed process's rows go to its survivors (or successor) within seconds.
constexpr auto kLease = std::chrono::seconds(2);

const whizbang::Registry& registry_of(const std::string& service) {
  return service == "sales" ? sales_registry() : fulfilment_registry();
}

}  // namespace

absl::StatusOr<std::unique_ptr<ServiceProcess>> ServiceProcess::start(
    const std::filesystem::path& data_dir, const std::string& service,
    const std::string& amqp_url) {
  if (service != "sales" && service != "fulfilment") {
    return absl::InvalidArgumentError("unknown service " + service);
  }
  std::unique_ptr<ServiceProcess> process(new ServiceProcess());
  if (amqp_url.empty()) {
    std::vector<Mailbox> mailboxes;
    for (const std::string name : {"sales", "fulfilment"}) {
      auto bindings = bindings_of(registry_of(name), name);
      if (!bindings.ok()) return bindings.status();
      mailboxes.push_back({name, &registry_of(name), *std::move(bindings)});
    }
    process->transport_ = std::make_unique<StoreTransport>(data_dir, std::move(mailboxes));
  } else {
    auto options = whizbang::rabbitmq_options_from_url(amqp_url);
    if (!options.ok()) return options.status();
    // Quick to come back after a broker restart; a partition is noticed within seconds.
    options->heartbeat = std::chrono::seconds(2);
    options->reconnect_max_delay = std::chrono::milliseconds(500);
    options->connection_name = service + "-" + std::to_string(getpid());
    process->transport_ = std::make_unique<whizbang::RabbitMqTransport>(*std::move(options));
  }

  whizbang::StoreOptions store_options;
  store_options.instance.service_name = service;
  store_options.lease_duration = kLease;
  auto store =
      whizbang::open_work_store(store_location(data_dir, service), std::move(store_options));
  if (!store.ok()) return store.status();
  process->store_ = *std::move(store);
  if (absl::Status tables = create_own_tables(*process->store_, service); !tables.ok()) {
    return tables;
  }
  process->executor_ = std::make_unique<whizbang::ThreadPoolExecutor>(2);

  whizbang::HostOptions options;
  options.service_name = service;
  options.store = process->store_.get();
  options.transport = process->transport_.get();
  options.executor = process->executor_.get();
  options.poll_interval = std::chrono::milliseconds(10);  // the other processes do not wake it
  options.lease_renewal_interval = std::chrono::milliseconds(500);
  auto host = whizbang::ServiceHost::create(registry_of(service), process->dependencies_, options);
  if (!host.ok()) return host.status();
  process->host_ = *std::move(host);
  if (absl::Status status = process->host_->start(); !status.ok()) return status;
  return process;
}

ServiceProcess::~ServiceProcess() { stop(); }

void ServiceProcess::stop() {
  if (host_) host_->stop();
}

}  // namespace crash_restart
