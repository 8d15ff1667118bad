// A store header that includes a workers header: the store layer must not see workers.
#pragma once

#include "whizbang/workers/inbox_worker.hpp"
