// SyncToken and EmissionCapture: what a dispatch emitted that perspectives apply, for
// read-your-writes (whizbang/workers/perspective_sync.hpp, docs/perspectives.md).
//
// While an EmissionCapture is alive, every event a dispatch on this thread writes for the event
// store (an event row with a stream: the dispatched message itself when it is an event, and the
// events its handling cascades, with their derived ids) is recorded in it. Events handled in
// another service, or emitted later by other handlings, are not: they are not this dispatch's.
// A dispatch that failed may have recorded events its unit of work then rolled back: wait on
// the token of dispatches that succeeded (the *_and_sync wrappers of perspective_sync.hpp do).
//
//   whizbang::EmissionCapture capture;
//   auto receipt = dispatcher.send(CreateOrder{...});
//   whizbang::SyncToken token = capture.take();   // then PerspectiveSync::wait(token)
#pragma once

#include <vector>

#include "whizbang/ids/message_id.hpp"
#include "whizbang/ids/uuid.hpp"
#include "whizbang/message/message_type.hpp"

namespace whizbang {

// One event a dispatch wrote for the event store.
struct EmittedEvent {
  MessageId event_id;
  const MessageTypeInfo* type = nullptr;
  Uuid stream_id;
};

// The events one dispatch (its unit of work) emitted, in the order written.
struct SyncToken {
  std::vector<EmittedEvent> events;
  bool empty() const { return events.empty(); }
};

class EmissionCapture {
 public:
  EmissionCapture();
  ~EmissionCapture();
  EmissionCapture(const EmissionCapture&) = delete;
  EmissionCapture& operator=(const EmissionCapture&) = delete;

  // What was recorded so far.
  const SyncToken& token() const { return token_; }
  // Hands over what was recorded and starts empty again.
  SyncToken take();

  // The dispatcher calls it for each event row it writes; every capture open on this thread
  // records it (nested ones too). Nothing happens when none is open.
  static void record(const MessageId& event_id, const MessageTypeInfo& type, const Uuid& stream_id);

 private:
  SyncToken token_;
};

}  // namespace whizbang
