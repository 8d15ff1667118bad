// What the dispatcher's source files share: the receptor index entry, the emission source, the
// sinks receptors cascade into and the context a receptor sees. The dispatcher is one class in
// several files, one concern each: construction and the receptor index (dispatcher.cpp), emission
// identity and envelopes (dispatcher_envelopes.cpp), running receptors and cascading
// (dispatcher_cascade.cpp), outbox rows (dispatcher_outbox.cpp) and the public verbs
// (dispatcher_verbs.cpp).
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "whizbang/dispatch/dispatcher.hpp"
#include "whizbang/observability/logging.hpp"

namespace whizbang {

// The receptors of one message type, pre-sorted by how the dispatcher uses them.
struct Dispatcher::Entry {
  static constexpr std::size_t kFiringStages = kStageNames.size() - 1;  // all but the tag hook

  std::vector<const ReceptorInfo*> all;                                  // declaration order
  std::array<std::vector<const ReceptorInfo*>, kFiringStages> at_stage;  // by Stage value
  std::vector<const ReceptorInfo*> default_stage;  // run by cascades and publishes (no fire_at)
  const ReceptorInfo* first_with_result = nullptr;
  const ReceptorInfo* first_void = nullptr;
  bool default_stage_all_void = true;  // nothing a publish runs can cascade
  // The default resolver's answer, computed once and kept for the program's life, so receipts
  // borrow it (kept_destinations.hpp; a custom resolver is asked every time).
  std::optional<std::string_view> cached_destination;
};

// Inline: every dispatch looks its type up, and a local publish is a few dozen instructions.
inline std::size_t Dispatcher::entry_slot(const MessageTypeInfo* type) const {
  // Fibonacci hashing: the multiply spreads the address's low bits into the top ones kept.
  return static_cast<std::size_t>(
      (static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(type)) *
       0x9E3779B97F4A7C15ull) >>
      entry_shift_);
}

inline const Dispatcher::Entry* Dispatcher::entry_for(const MessageTypeInfo& type) const {
  const std::size_t mask = entry_slots_.size() - 1;
  for (std::size_t slot = entry_slot(&type);; slot = (slot + 1) & mask) {
    const auto& [key, entry] = entry_slots_[slot];
    if (key == &type) return entry;
    if (key == nullptr) return nullptr;  // at most half the slots are used: an empty one ends it
  }
}

// The handling a cascaded message comes from: what its id derives from and what it inherits.
struct Dispatcher::EmissionSource {
  const Envelope* envelope = nullptr;
  MessageId derive_from;  // the anchor, else the envelope's id; nil: mint fresh ids
  std::string_view handler;
  EmissionSequence* sequence = nullptr;

  static EmissionSource of(const Envelope& envelope) {
    return of(envelope, envelope.dispatch_context.handler_name, envelope.emission_sequence());
  }
  // A handling of `envelope` by `handler` with its own ordinals: no envelope copy needed.
  static EmissionSource of(const Envelope& envelope, std::string_view handler,
                           EmissionSequence& sequence) {
    return {&envelope, envelope.emission_anchor.value_or(envelope.message_id), handler, &sequence};
  }
};

namespace dispatch_internal {

// Collects what a receptor's result cascades, so each message is dispatched after `handle`
// returned and errors can propagate.
class CollectingSink final : public CascadeSink {
 public:
  explicit CollectingSink(const std::shared_ptr<spdlog::logger>& logger) : logger_(logger) {}

  void emit(AnyMessage message, DispatchModes mode) override {
    emitted.emplace_back(std::move(message), mode);
  }
  void ignored(std::string_view type_name) override {
    log(logger_, spdlog::level::debug, log_events::kCascadeNonMessageIgnored,
        "[CASCADE] {} in a receptor result is not a message; not cascaded", type_name);
  }

  std::vector<std::pair<AnyMessage, DispatchModes>> emitted;

 private:
  const std::shared_ptr<spdlog::logger>& logger_;
};

// For receptors that return nothing: there is nothing to collect.
class DiscardingSink final : public CascadeSink {
 public:
  void emit(AnyMessage, DispatchModes) override {}
};

// What a receptor sees of the message it handles: an explicit as_system()/run_as() around the
// dispatch wins over the envelope's scope.
// `scope`: the scope the message carries, or nullptr.
MessageContext make_context(const MessageId& id, std::optional<MessageId> correlation,
                            std::optional<MessageId> causation, const SecurityScope* scope);
MessageContext context_of(const Envelope& envelope);
// The context of a root message `id` (its own correlation, no causation) dispatched now.
MessageContext root_context(const MessageId& id);
// The scope an emitted message carries: the ambient security context's, else its source's.
std::optional<SecurityScope> outgoing_scope(const Envelope* source);

}  // namespace dispatch_internal
}  // namespace whizbang
