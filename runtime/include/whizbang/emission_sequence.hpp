// EmissionSequence: the ordinals 0, 1, 2, ... one handling hands to the messages it emits.
//
// One sequence belongs to one source-envelope instance (the envelope owns it), so a retry, which
// materializes a fresh envelope, restarts at 0 and re-derives the same ids; and the sequence dies
// with its envelope, so nothing accumulates.
//
//   EmissionSequence seq;
//   seq.next();  // 0
//   seq.next();  // 1
#pragma once

#include <atomic>
#include <cstdint>

namespace whizbang {

class EmissionSequence {
 public:
  EmissionSequence() = default;
  // A copy is a new handling's view of the same position (envelopes are copied when cloned).
  EmissionSequence(const EmissionSequence& other) : next_(other.peek()) {}
  EmissionSequence& operator=(const EmissionSequence& other) {
    next_.store(other.peek(), std::memory_order_relaxed);
    return *this;
  }

  // Hands out the next ordinal. Thread-safe.
  std::int64_t next() { return next_.fetch_add(1, std::memory_order_relaxed); }
  // The ordinal next() would hand out, without taking it.
  std::int64_t peek() const { return next_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::int64_t> next_{0};
};

}  // namespace whizbang
