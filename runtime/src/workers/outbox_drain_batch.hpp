// One drain cycle's claimed rows on their way out: grouped for the transport's publish calls
// (one destination each) with every stream's rows kept in claim order, and what becomes of each
// row (completed, failed, or released for the next cycle).
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "whizbang/workers/outbox_drain_worker.hpp"

namespace whizbang {
namespace outbox_drain {

// Rows published in one transport call: one destination, any number of streams (each message
// carries its own stream id; the destination's "StreamId" stays only while the group holds rows
// of one stream). Not in an anonymous namespace: OutboxDrainWorker::Batch, declared in the
// worker's header, holds them.
struct Group {
  TransportDestination destination;
  std::vector<TransportMessage> messages;
  std::vector<Envelope> envelopes;  // parallel to messages, for the PostOutbox stages
};

// Removes the rows of `group` for which `drop(message)` says true, keeping the others in order
// (messages and envelopes stay parallel).
template <class Drop>
void remove_rows_if(Group& group, Drop drop) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < group.messages.size(); ++i) {
    if (drop(group.messages[i])) continue;
    if (kept != i) {
      group.messages[kept] = std::move(group.messages[i]);
      group.envelopes[kept] = std::move(group.envelopes[i]);
    }
    ++kept;
  }
  group.messages.erase(group.messages.begin() + static_cast<std::ptrdiff_t>(kept),
                       group.messages.end());
  group.envelopes.erase(group.envelopes.begin() + static_cast<std::ptrdiff_t>(kept),
                        group.envelopes.end());
}

}  // namespace outbox_drain

struct OutboxDrainWorker::Batch {
  using Group = outbox_drain::Group;

  std::vector<Group> groups;  // in publishing order
  std::vector<WorkCompletion> completions;
  std::vector<std::string> published_types;  // of each Published completion, when counted
  std::vector<WorkFailure> failures;
  std::vector<WorkDeferral> deferrals;  // rows whose destination's circuit breaker is open
  // Streams with a row that failed (or waits) in this batch: their later rows wait too.
  std::set<Uuid> stopped_streams;
  // The newest group of each destination (group_key) and of each stream. A row joins its
  // destination's newest group unless its stream already has rows in a later group: a stream's
  // rows leave in claim order even when their destinations alternate.
  std::map<std::string, std::size_t> last_group_of_destination;
  std::map<Uuid, std::size_t> last_group_of_stream;

  bool stopped(const std::optional<Uuid>& stream) const {
    return stream && stopped_streams.contains(*stream);
  }
  void release(const MessageId& id, DrainCycleResult& result) {
    completions.push_back({WorkSource::Outbox, id, MessageStatus::None});
    ++result.held_back;
  }

  // The group a row for `destination` joins (see last_group_of_destination).
  Group& group_for(TransportDestination destination, const std::optional<Uuid>& stream_id);
  // Releases every row of `group` (they wait for the next cycle) and stops their streams.
  void release_group(Group& group, DrainCycleResult& result);
  // Hands every row of `group` back for `wait` (no attempt counted) and stops their streams.
  void defer_group(Group& group, std::chrono::microseconds wait, DrainCycleResult& result);
  // Keeps the first row of `group` and releases the others (they wait for the next cycle); their
  // streams stop. Returns how many were released.
  std::size_t keep_first(Group& group, DrainCycleResult& result);
  // Releases the rows of `group` whose stream stopped after the group was formed.
  void withhold_stopped_streams(Group& group, DrainCycleResult& result);
};

}  // namespace whizbang
