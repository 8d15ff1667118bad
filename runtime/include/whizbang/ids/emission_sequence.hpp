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
  // The sequence belongs to one envelope *instance*: a copied envelope is another instance, and
  // like a retry's fresh envelope its sequence starts at 0. Assignment keeps this one's position.
  EmissionSequence(const EmissionSequence&) {}
  EmissionSequence& operator=(const EmissionSequence&) { return *this; }

  // Hands out the next ordinal. Thread-safe.
  std::int64_t next() { return next_.fetch_add(1, std::memory_order_relaxed); }
  // The ordinal next() would hand out, without taking it.
  std::int64_t peek() const { return next_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::int64_t> next_{0};
};

}  // namespace whizbang
