#include "whizbang/retry/backoff.hpp"

#include <algorithm>

#include "absl/random/distributions.h"
#include "absl/random/random.h"

namespace whizbang {

Backoff::Duration Backoff::delay_with_jitter(int retry) const {
  const Duration wait = delay(retry);
  if (jitter <= 0.0 || wait <= Duration::zero()) return wait;
  thread_local absl::BitGen random;
  const double spread = std::min(jitter, 1.0);
  const double scale = absl::Uniform(random, 1.0 - spread, 1.0 + spread);
  return Duration(static_cast<std::int64_t>(static_cast<double>(wait.count()) * scale));
}

}  // namespace whizbang
