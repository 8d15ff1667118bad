// Counts global operator new calls, for benchmarks that report allocations per message.
#pragma once

#include <cstdint>

namespace bench {
std::int64_t allocations();
}  // namespace bench
