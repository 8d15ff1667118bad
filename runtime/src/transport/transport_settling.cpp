#include "whizbang/transport/transport.hpp"

#include "absl/strings/cord.h"

namespace whizbang {
namespace {

// The payload that marks a failed publish as the transport's passing state; its value says
// nothing more.
constexpr char kSettlingPayload[] = "type.whizbang.dev/transport-settling";

}  // namespace

absl::Status mark_transport_settling(absl::Status status) {
  if (!status.ok()) status.SetPayload(kSettlingPayload, absl::Cord("settling"));
  return status;
}

bool is_transport_settling(const absl::Status& status) {
  return !status.ok() && status.GetPayload(kSettlingPayload).has_value();
}

}  // namespace whizbang
