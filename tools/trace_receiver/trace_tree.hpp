// One trace as an indented tree, for a newcomer's terminal (./dev.sh run distributed) and test
// failures: each span under its parent, children by start time, with its service, name, duration
// and, when it has one, the exactly-once decision (`whizbang.exactly_once.decision`).
//
//   trace 4bf92f3577b34da6a3ce929d0e0e4736: 4 spans, 2 services (orders, notifications)
//   [orders] send shop::PlaceOrder  2.1 ms
//     [orders] handle shop::PlaceOrder  1.4 ms  decision=fired
//       [orders] publish shop::OrderPlaced  0.3 ms
//         [notifications] handle shop::OrderPlaced  0.9 ms  decision=fired
#pragma once

#include <optional>
#include <span>
#include <string>

#include "trace_receiver.hpp"
#include "whizbang/observability/trace_names.hpp"

namespace whizbang {

inline constexpr std::string_view kDecisionAttribute = span_attributes::kExactlyOnceDecision;

// The spans of one trace as a tree; a span whose parent is not among them (the trace began in
// another system, or the parent's span was not received) is a root.
std::string format_trace_tree(std::span<const ReceivedSpan> spans);

// The trace that crosses the most services (then: has the most spans; then: began first).
std::optional<TraceId> busiest_trace(std::span<const ReceivedSpan> spans);

}  // namespace whizbang
