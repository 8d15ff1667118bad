// Guardrail options: how the exactly-once receptor firing contract is tracked and enforced.
//
// Code:
//   whizbang::GuardrailOptions guardrails;
//   guardrails.on_double_fire = whizbang::OnDoubleFire::Throw;   // canary environments
//
// Configuration (the same section the reference reads):
//   {"Whizbang": {"Guardrails": {"ReceptorInvocationTracking": "TrackAndEnforce",
//                                "OnDoubleFire": "Warn", "PersistInvocations": "Envelope"}}}
//   auto options = whizbang::guardrail_options_from_json(config_text);
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "whizbang/ids/message_id.hpp"
#include "whizbang/retry/failure.hpp"
#include "whizbang/stage.hpp"

namespace whizbang {

enum class ReceptorInvocationTracking : std::uint8_t {
  Off = 0,              // no records read or written
  Track = 1,            // records written, duplicates never skipped (rollout observability)
  TrackAndEnforce = 2,  // records written and duplicates skipped or thrown (default)
};

enum class OnDoubleFire : std::uint8_t {
  Warn = 0,   // Warning log (EventId 18) and the duplicate attempt is skipped (default)
  Throw = 1,  // DuplicateReceptorFireException from the invoker
};

enum class PersistInvocations : std::uint8_t {
  Envelope = 0,  // records ride on the envelope (default)
  Database = 1,  // also written to wh_receptor_invocations with the handling's other rows
};

struct GuardrailOptions {
  ReceptorInvocationTracking tracking = ReceptorInvocationTracking::TrackAndEnforce;
  OnDoubleFire on_double_fire = OnDoubleFire::Warn;
  PersistInvocations persist = PersistInvocations::Envelope;
};

// Reads the "Whizbang.Guardrails" section of a JSON configuration document. Absent settings keep
// their defaults; an unknown value is InvalidArgument naming the setting and the accepted values.
absl::StatusOr<GuardrailOptions> guardrail_options_from_json(std::string_view config_json);

// Raised by the invoker when OnDoubleFire is Throw and a receptor would fire twice for a message.
// A PermanentRuntimeError: the handling fails permanently (retry/failure.hpp).
class DuplicateReceptorFireException : public PermanentRuntimeError {
 public:
  DuplicateReceptorFireException(std::string receptor_id, MessageId message_id, Stage stage,
                                 std::string prior_service, Stage prior_stage);

  const std::string& receptor_id() const { return receptor_id_; }
  const MessageId& message_id() const { return message_id_; }
  Stage stage() const { return stage_; }
  const std::string& prior_service() const { return prior_service_; }
  Stage prior_stage() const { return prior_stage_; }

 private:
  std::string receptor_id_;
  MessageId message_id_;
  Stage stage_;
  std::string prior_service_;
  Stage prior_stage_;
};

}  // namespace whizbang
