#include "crash_restart/services.hpp"

#include <chrono>

#include "crash_restart/fulfilment.hpp"
#include "crash_restart/own_tables.hpp"
#include "crash_restart/sales.hpp"
#include "crash_restart/store_location.hpp"
#include "whizbang/store/open_work_store.hpp"

namespace crash_restart {
namespace {

// Everything a cycle moved or failed to move; zero means the service is idle.
std::size_t activity(const whizbang::HostCycle& cycle) {
  return cycle.outbox.deferred_written + cycle.outbox.published + cycle.outbox.event_store_only +
         cycle.outbox.failed + cycle.outbox.quarantined + cycle.inbox.handled + cycle.inbox.failed +
         cycle.inbox.quarantined + cycle.inbox.crashed + cycle.perspectives.applied +
         cycle.perspectives.already_applied + cycle.perspectives.failed +
         cycle.perspectives.events_completed;
}

// A cycle that failed or set rows aside is a finding, not progress.
absl::Status failures_in(const std::string& service, const whizbang::HostCycle& cycle) {
  const std::size_t failures = cycle.outbox.failed + cycle.outbox.quarantined + cycle.inbox.failed +
                               cycle.inbox.quarantined + cycle.perspectives.failed;
  if (failures == 0) return absl::OkStatus();
  return absl::InternalError(service + ": " + std::to_string(failures) +
                             " rows failed or were quarantined in one cycle");
}

}  // namespace

absl::StatusOr<std::unique_ptr<Services>> Services::open(const std::filesystem::path& data_dir,
                                                         int incarnation,
                                                         std::chrono::seconds lease) {
  auto services = std::unique_ptr<Services>(new Services());
  if (absl::Status status = services->open_service(services->sales_, "sales", sales_registry(),
                                                   data_dir, incarnation, lease);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = services->open_service(
          services->fulfilment_, "fulfilment", fulfilment_registry(), data_dir, incarnation, lease);
      !status.ok()) {
    return status;
  }
  return services;
}

absl::Status Services::open_service(Service& service, const std::string& name,
                                    const whizbang::Registry& registry,
                                    const std::filesystem::path& data_dir, int incarnation,
                                    std::chrono::seconds lease) {
  whizbang::StoreOptions store_options;
  store_options.lease_duration = lease;
  store_options.instance.service_name = name;
  const auto offset = std::chrono::hours(incarnation);
  store_options.now = [offset] { return whizbang::Clock::now() + offset; };
  auto store = whizbang::open_work_store(store_location(data_dir, name), store_options);
  if (!store.ok()) return store.status();
  service.store = *std::move(store);
  if (absl::Status tables = create_own_tables(*service.store, name); !tables.ok()) return tables;

  whizbang::HostOptions options;
  options.service_name = name;
  options.store = service.store.get();
  options.transport = &transport_;
  auto host = whizbang::ServiceHost::create(registry, service.dependencies, std::move(options));
  if (!host.ok()) return host.status();
  service.host = *std::move(host);
  // Subscribed, never started: the worker steps the cycles itself, and both services listen
  // before either drains.
  return service.host->subscribe();
}

absl::StatusOr<bool> Services::run_cycle() {
  bool idle = true;
  for (auto [name, service] :
       {std::pair{"sales", &sales_}, std::pair{"fulfilment", &fulfilment_}}) {
    absl::StatusOr<whizbang::HostCycle> cycle = service->host->run_once();
    if (!cycle.ok()) return cycle.status();
    if (absl::Status status = failures_in(name, *cycle); !status.ok()) return status;
    idle = idle && activity(*cycle) == 0;
  }
  return idle;
}

}  // namespace crash_restart
