#include "crash_restart/store_transport.hpp"

#include <algorithm>

#include "whizbang/host/service_host.hpp"
#include "whizbang/store/memory_work_store.hpp"

namespace crash_restart {
namespace {

class NoSubscription final : public whizbang::TransportSubscription {};

}  // namespace

StoreTransport::StoreTransport(std::filesystem::path data_dir, std::vector<Mailbox> mailboxes)
    : data_dir_(std::move(data_dir)) {
  for (Mailbox& mailbox : mailboxes) receivers_.push_back({std::move(mailbox), nullptr, nullptr});
}

StoreTransport::~StoreTransport() = default;

absl::Status StoreTransport::open(Receiver& receiver) {
  if (receiver.inbox) return absl::OkStatus();
  whizbang::StoreOptions store_options;
  store_options.instance.service_name = receiver.mailbox.service + "-delivery";
  auto store = whizbang::SqliteWorkStore::open(
      (data_dir_ / (receiver.mailbox.service + ".db")).string(), store_options);
  if (!store.ok()) return store.status();
  receiver.store = *std::move(store);
  whizbang::InboxWorkerOptions options;
  options.service_name = receiver.mailbox.service;
  options.service_id = whizbang::service_id_for(receiver.mailbox.service);
  options.bindings = receiver.mailbox.bindings;
  const whizbang::Registry* registry = receiver.mailbox.registry;
  receiver.inbox = std::make_unique<whizbang::InboxWorker>(
      *receiver.store, [registry](std::string_view name) { return registry->find_message(name); },
      [](whizbang::InboxHandling&) { return absl::OkStatus(); }, options);
  return absl::OkStatus();
}

absl::Status StoreTransport::publish(const whizbang::TransportDestination& destination,
                                     std::span<const whizbang::TransportMessage> batch) {
  std::lock_guard lock(mutex_);
  bool delivered = false;
  for (Receiver& receiver : receivers_) {
    const bool bound = std::any_of(
        receiver.mailbox.bindings.begin(), receiver.mailbox.bindings.end(),
        [&](const whizbang::TransportBinding& binding) {
          return binding.address == destination.address &&
                 whizbang::routing_key_matches(binding.routing_key, destination.routing_key);
        });
    if (!bound) continue;
    if (absl::Status status = open(receiver); !status.ok()) return status;
    if (absl::Status status = receiver.inbox->receive(batch).status; !status.ok()) return status;
    delivered = true;
  }
  const bool has_command = std::any_of(
      batch.begin(), batch.end(), [](const whizbang::TransportMessage& m) { return !m.is_event; });
  if (!delivered && has_command) {
    return absl::UnavailableError("no service is bound to " + destination.address + " " +
                                  destination.routing_key);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<whizbang::TransportSubscription>> StoreTransport::subscribe(
    std::string_view, std::vector<whizbang::TransportBinding>, DeliveryHandler) {
  return std::unique_ptr<whizbang::TransportSubscription>(new NoSubscription());
}

absl::StatusOr<std::vector<whizbang::TransportBinding>> bindings_of(
    const whizbang::Registry& registry, const std::string& service) {
  whizbang::MemoryWorkStore store;
  whizbang::ServiceRegistry dependencies;
  whizbang::HostOptions options;
  options.service_name = service;
  options.store = &store;
  auto host = whizbang::ServiceHost::create(registry, dependencies, std::move(options));
  if (!host.ok()) return host.status();
  return (*host)->bindings();
}

}  // namespace crash_restart
