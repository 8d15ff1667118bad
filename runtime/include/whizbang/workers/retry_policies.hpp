// Moved: RetryPolicies is the store layer's now (whizbang/store/retry_policies.hpp), so the
// lifecycle's receptor invoker can use it too. This forwarding header stays for a while.
#pragma once

#include "whizbang/store/retry_policies.hpp"
