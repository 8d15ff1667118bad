// What the services' own tables hold before the first order (own_tables.hpp), for the services
// that seed them and the harness that checks them.
#pragma once

#include <cstdint>

namespace crash_restart {

inline constexpr std::int64_t kOpeningBalance = 1'000'000;  // sales: the customer's account
inline constexpr std::int64_t kOpeningStock = 1'000'000;    // fulfilment: widgets in stock

}  // namespace crash_restart
