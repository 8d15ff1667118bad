// When and how soon the exporter sends a failed request again (docs/guide/18-tracing.md): the
// answers OTLP/HTTP calls retryable (429, 502, 503, 504) and no answer at all (connection
// refused or reset, a timeout), with exponential backoff, honouring a collector's Retry-After.
#pragma once

#include <chrono>

#include "otlp_http_client.hpp"

namespace whizbang::otlp {

// True for a failure worth another try; false for success and for refusals that would repeat
// (400 a bad request, 401/403 credentials, 404 a wrong URL, 413 too large, ...).
bool retryable(const HttpPostResult& result);

// The wait before retry `retry` (1 for the first): initial × 2^(retry - 1), at most `max`, or
// the collector's Retry-After when it asked for one (at most `max` too).
std::chrono::milliseconds retry_delay(int retry, const HttpPostResult& result,
                                      std::chrono::milliseconds initial,
                                      std::chrono::milliseconds max);

}  // namespace whizbang::otlp
