#include "whizbang/workers/perspective_sync.hpp"

#include <algorithm>
#include <set>

#include "fmt/format.h"
#include "perspective_associations.hpp"
#include "whizbang/observability/logging.hpp"

namespace whizbang {
namespace {

// At most this many pending items are named in a DeadlineExceeded message.
constexpr std::size_t kNamedPending = 10;

// The events of `token` each chosen perspective applies: event id -> perspective names.
struct Awaited {
  const EmittedEvent* event = nullptr;
  std::vector<std::string_view> perspectives;
};

absl::StatusOr<std::vector<Awaited>> awaited(const Registry& registry, const SyncToken& token,
                                             const std::vector<std::string>& chosen) {
  for (const std::string& name : chosen) {
    if (registry.find_perspective(name) == nullptr) {
      return absl::InvalidArgumentError(
          fmt::format("read-your-writes: no perspective {} in this registry", name));
    }
  }
  std::vector<Awaited> result;
  std::set<MessageId> seen;
  for (const EmittedEvent& event : token.events) {
    if (event.type == nullptr || !seen.insert(event.event_id).second) continue;
    Awaited entry{&event, {}};
    for (const PerspectiveInfo* perspective : registry.perspectives_for(*event.type)) {
      if (chosen.empty() ||
          std::find(chosen.begin(), chosen.end(), perspective->name) != chosen.end()) {
        entry.perspectives.push_back(perspective->name);
      }
    }
    if (!entry.perspectives.empty()) result.push_back(std::move(entry));
  }
  return result;
}

}  // namespace

PerspectiveSync::PerspectiveSync(WorkStore& store, const Registry& registry, Backoff poll)
    : store_(store), registry_(registry), poll_(poll) {
  // Registered associations make the store write perspective events for the events it appends;
  // without them an appended event would look applied. The runner registers the same ones.
  (void)register_perspective_associations(store_, registry_);
  listener_ = store_.add_commit_listener([this](const CommitInfo& info) {
    if (!info.perspectives_written) return;
    std::lock_guard lock(mutex_);
    ++commits_;
    woken_.notify_all();
  });
}

PerspectiveSync::~PerspectiveSync() { store_.remove_commit_listener(listener_); }

absl::Status PerspectiveSync::wait(const SyncToken& token, const PerspectiveSyncOptions& options) {
  absl::StatusOr<std::vector<Awaited>> events = awaited(registry_, token, options.perspectives);
  if (!events.ok()) return events.status();
  if (events->empty()) return absl::OkStatus();
  if (store_.in_transaction()) {
    return absl::FailedPreconditionError(
        "read-your-writes: wait outside the store's transaction (the perspectives cannot apply "
        "what it has not committed, and this thread holds the store)");
  }
  std::vector<MessageId> ids;
  for (const Awaited& entry : *events) ids.push_back(entry.event->event_id);

  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  BackoffSequence poll(poll_);
  while (true) {
    std::uint64_t heard = 0;
    {
      std::lock_guard lock(mutex_);
      heard = commits_;
    }
    absl::StatusOr<std::vector<EventSyncState>> states = store_.event_sync_states(ids);
    if (!states.ok()) return states.status();
    std::vector<std::string> pending;
    for (std::size_t i = 0; i < events->size() && i < states->size(); ++i) {
      const Awaited& entry = (*events)[i];
      const EventSyncState& state = (*states)[i];
      const MessageId& id = entry.event->event_id;
      const std::string_view type = entry.event->type->wire_name;
      if (!state.stored) {
        pending.push_back(fmt::format("event {} ({}) is not in the event store yet", id, type));
        continue;
      }
      for (const PendingPerspective& row : state.pending) {
        if (std::find(entry.perspectives.begin(), entry.perspectives.end(), row.perspective_name) ==
            entry.perspectives.end()) {
          continue;
        }
        if (row.dead_lettered) {
          return absl::AbortedError(fmt::format(
              "read-your-writes: perspective {} dead-lettered event {} ({}); it will not apply "
              "it until the dead letter is requeued: {}",
              row.perspective_name, id, type, row.error));
        }
        pending.push_back(fmt::format("perspective {} has not applied event {} ({})",
                                      row.perspective_name, id, type));
      }
    }
    if (pending.empty()) return absl::OkStatus();
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      std::string named;
      for (std::size_t i = 0; i < pending.size() && i < kNamedPending; ++i) {
        if (!named.empty()) named += "; ";
        named += pending[i];
      }
      if (pending.size() > kNamedPending) {
        named += fmt::format("; and {} more", pending.size() - kNamedPending);
      }
      return absl::DeadlineExceededError(fmt::format(
          "read-your-writes: still pending after {} ms: {}", options.timeout.count(), named));
    }
    std::unique_lock lock(mutex_);
    const auto look_again = std::min<std::chrono::steady_clock::time_point>(
        deadline,
        now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(poll.next()));
    if (woken_.wait_until(lock, look_again, [&] { return commits_ != heard; })) poll.reset();
  }
}

}  // namespace whizbang
