// The shipping service of the two-process tracing test: ships the order (failing its first
// attempt, so the handling is retried) and has the once-across-services audit too (skipped).
#pragma once

#include <whizbang/message/envelope.hpp>
#include <whizbang/registry/registry.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>

#include "trace_e2e/messages.hpp"

namespace trace_e2e {

// What the shipping receptors share with the process: how often shipping is still to fail, and
// the store's clock, which runs 100 times faster once shipping failed so the retry's 60 s
// backoff passes in well under a second (without a sleep, without moving it from outside).
struct ShippingState {
  std::atomic<int> failures_left{1};
  std::atomic<std::int64_t> failed_at_us{0};  // real time of the first failure; 0: none yet

  whizbang::TimePoint store_now() const {
    const whizbang::TimePoint real = whizbang::Clock::now();
    const std::int64_t failed_at = failed_at_us.load();
    if (failed_at == 0) return real;
    const auto since = real - whizbang::TimePoint(std::chrono::microseconds(failed_at));
    return real + since * 99;
  }
};

// Throws while failures_left > 0, then ships. Inline: its failure fails the handling, which is
// retried (attempt 1 links to attempt 0's span).
class [[whizbang::fire_at(whizbang::Stage::PostInboxInline)]] ShipOrderReceptor
    : public whizbang::Receptor<OrderPlaced> {
 public:
  explicit ShipOrderReceptor(ShippingState& state) : state_(state) {}
  void handle(const OrderPlaced& event);

 private:
  ShippingState& state_;
};

// The same receptor id as orders' AuditOrder: the envelope says it fired there.
class [[whizbang::once_across_services]] AuditOrder : public whizbang::Receptor<OrderPlaced> {
 public:
  void handle(const OrderPlaced& event);
};

const whizbang::Registry& shipping_registry();

}  // namespace trace_e2e
