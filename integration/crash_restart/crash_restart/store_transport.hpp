// StoreTransport: services in separate processes on one machine, joined through their SQLite
// stores — a test fixture, not a product transport. publish() stores the batch straight into the
// inbox of every service bound to it (through that service's InboxWorker::receive, the path a
// transport's delivery takes) and returns once those inboxes committed. The receiving process
// finds the rows when its inbox worker polls.
//
//   crash_restart::StoreTransport transport(data_dir, {{"sales", sales_bindings}, ...});
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "whizbang/registry/registry.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"
#include "whizbang/transport/transport.hpp"
#include "whizbang/workers/inbox_worker.hpp"

namespace crash_restart {

// A service this transport delivers to: its store file, registry and bindings.
struct Mailbox {
  std::string service;
  const whizbang::Registry* registry = nullptr;
  std::vector<whizbang::TransportBinding> bindings;
};

class StoreTransport final : public whizbang::Transport {
 public:
  StoreTransport(std::filesystem::path data_dir, std::vector<Mailbox> mailboxes);
  ~StoreTransport() override;

  absl::Status publish(const whizbang::TransportDestination& destination,
                       std::span<const whizbang::TransportMessage> batch) override;
  // The store is the mailbox: a service's own inbox worker finds what was stored for it.
  absl::StatusOr<std::unique_ptr<whizbang::TransportSubscription>> subscribe(
      std::string_view service_name, std::vector<whizbang::TransportBinding> bindings,
      DeliveryHandler handler) override;

 private:
  struct Receiver {
    Mailbox mailbox;
    std::unique_ptr<whizbang::SqliteWorkStore> store;
    std::unique_ptr<whizbang::InboxWorker> inbox;
  };
  absl::Status open(Receiver& receiver);

  std::filesystem::path data_dir_;
  std::mutex mutex_;  // publish() may be called from several workers' threads
  std::vector<Receiver> receivers_;
};

// The bindings a host of `registry` subscribes with (a throwaway host on a memory store).
absl::StatusOr<std::vector<whizbang::TransportBinding>> bindings_of(
    const whizbang::Registry& registry, const std::string& service);

}  // namespace crash_restart
