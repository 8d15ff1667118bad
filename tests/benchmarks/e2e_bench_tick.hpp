// The end-to-end benchmark's message: a Tick carries its send time. It has a library and a
// registry of its own (e2e_bench_tick): the producer's host runs on that registry, which has no
// receptor, so the producer publishes Ticks and takes none back, as a producer service does and
// as the raw baselines do. The consumer's registry (e2e_bench_messages.hpp) adds the receptor.
#pragma once

#include <whizbang/registry/registry.hpp>
#include <whizbang/whizbang.hpp>

#include <chrono>
#include <cstdint>

namespace bench {

inline std::int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Tick : whizbang::Event {
  std::int64_t sent_at_ns = 0;
};

// The producer's registry: the Tick, no receptor (e2e_bench_tick.cpp).
const whizbang::Registry& producer_registry();

}  // namespace bench
