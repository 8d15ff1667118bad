#include "outbox_drain_batch.hpp"

namespace whizbang {
namespace {

// Rows may share a transport call when their destinations differ at most in their stream.
std::string group_key(const TransportDestination& destination) {
  std::string key = destination.address + '\n' + destination.routing_key;
  for (const auto& [name, value] : destination.metadata) {
    if (name != "StreamId") key += '\n' + name + '=' + value;
  }
  return key;
}

}  // namespace

OutboxDrainWorker::Batch::Group& OutboxDrainWorker::Batch::group_for(
    TransportDestination destination, const std::optional<Uuid>& stream_id) {
  const std::string key = group_key(destination);
  std::optional<std::size_t> index;
  if (auto last = last_group_of_destination.find(key); last != last_group_of_destination.end()) {
    auto stream_last =
        stream_id ? last_group_of_stream.find(*stream_id) : last_group_of_stream.end();
    if (stream_last == last_group_of_stream.end() || stream_last->second <= last->second) {
      index = last->second;
    }
  }
  if (!index) {
    groups.push_back({std::move(destination), {}, {}});
    index = groups.size() - 1;
    last_group_of_destination[key] = *index;
  } else if (auto& joined = groups[*index].destination.metadata;
             joined.contains("StreamId") &&
             joined["StreamId"] != destination.metadata["StreamId"]) {
    joined.erase("StreamId");  // a second stream joined: the destination names none
  }
  if (stream_id) last_group_of_stream[*stream_id] = *index;
  return groups[*index];
}

void OutboxDrainWorker::Batch::release_group(Group& group, DrainCycleResult& result) {
  for (const TransportMessage& message : group.messages) {
    if (message.stream_id) stopped_streams.insert(*message.stream_id);
    release(message.message_id, result);
  }
  group.messages.clear();
  group.envelopes.clear();
}

void OutboxDrainWorker::Batch::defer_group(Group& group, std::chrono::microseconds wait,
                                           DrainCycleResult& result) {
  for (const TransportMessage& message : group.messages) {
    if (message.stream_id) stopped_streams.insert(*message.stream_id);
    deferrals.push_back({WorkSource::Outbox, message.message_id, wait});
    ++result.deferred;
  }
  group.messages.clear();
  group.envelopes.clear();
}

std::size_t OutboxDrainWorker::Batch::keep_first(Group& group, DrainCycleResult& result) {
  std::size_t released = 0;
  outbox_drain::remove_rows_if(group, [&](const TransportMessage& message) {
    if (&message == &group.messages.front()) return false;
    if (message.stream_id) stopped_streams.insert(*message.stream_id);
    release(message.message_id, result);
    ++released;
    return true;
  });
  return released;
}

void OutboxDrainWorker::Batch::withhold_stopped_streams(Group& group, DrainCycleResult& result) {
  outbox_drain::remove_rows_if(group, [&](const TransportMessage& message) {
    if (!stopped(message.stream_id)) return false;
    release(message.message_id, result);
    return true;
  });
}

}  // namespace whizbang
