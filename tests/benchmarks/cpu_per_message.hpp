// CPU time per message for the end-to-end benchmarks (e2e_bench, tracing_bench).
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <ctime>

namespace bench {

// The CPU time every thread of this process spent, in microseconds.
inline double process_cpu_us() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e6 + static_cast<double>(now.tv_nsec) / 1e3;
}

// Reports the process's CPU time per message over the benchmark's loop (`cpu_us_per_msg`): all
// threads, both services' workers included. Wall time on these machines moves with the broker,
// fsync and the neighbours; the CPU a message costs moves much less, so it shows what a change to
// the path saves. Construct before the loop, call report() after it.
class CpuPerMessage {
 public:
  CpuPerMessage() : start_(process_cpu_us()) {}
  void report(benchmark::State& state, std::int64_t messages) const {
    if (messages <= 0) return;
    state.counters["cpu_us_per_msg"] = (process_cpu_us() - start_) / static_cast<double>(messages);
  }

 private:
  double start_;
};

}  // namespace bench
