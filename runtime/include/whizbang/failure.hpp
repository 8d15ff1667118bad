// Moved to whizbang/retry/failure.hpp; this forwarding header is kept for a while.
#pragma once
#include "whizbang/retry/failure.hpp"  // IWYU pragma: export
