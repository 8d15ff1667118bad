#include "otlp_retry.hpp"

#include <algorithm>

#include "whizbang/retry/backoff.hpp"

namespace whizbang::otlp {

bool retryable(const HttpPostResult& result) {
  if (result.ok()) return false;
  if (!result.error.empty()) return true;  // no answer: down, unreachable, too slow
  return result.status == 429 || result.status == 502 || result.status == 503 ||
         result.status == 504;
}

std::chrono::milliseconds retry_delay(int retry, const HttpPostResult& result,
                                      std::chrono::milliseconds initial,
                                      std::chrono::milliseconds max) {
  if (result.retry_after) return std::min(*result.retry_after, max);
  const Backoff backoff{.initial = initial, .factor = 2, .cap = max};
  return std::chrono::duration_cast<std::chrono::milliseconds>(backoff.delay(retry));
}

}  // namespace whizbang::otlp
