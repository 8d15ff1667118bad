#include "whizbang/dispatch/sync_token.hpp"

#include <algorithm>
#include <utility>

namespace whizbang {
namespace {

// The captures open on this thread, innermost last.
std::vector<EmissionCapture*>& open_captures() {
  thread_local std::vector<EmissionCapture*> open;
  return open;
}

}  // namespace

EmissionCapture::EmissionCapture() { open_captures().push_back(this); }

EmissionCapture::~EmissionCapture() {
  std::vector<EmissionCapture*>& open = open_captures();
  open.erase(std::remove(open.begin(), open.end(), this), open.end());
}

SyncToken EmissionCapture::take() { return std::exchange(token_, SyncToken{}); }

void EmissionCapture::record(const MessageId& event_id, const MessageTypeInfo& type,
                             const Uuid& stream_id) {
  for (EmissionCapture* capture : open_captures()) {
    std::vector<EmittedEvent>& events = capture->token_.events;
    // A retried handling writes the same derived ids again: one entry each.
    if (std::any_of(events.begin(), events.end(),
                    [&](const EmittedEvent& known) { return known.event_id == event_id; })) {
      continue;
    }
    events.push_back({event_id, &type, stream_id});
  }
}

}  // namespace whizbang
