// Moved to whizbang/registry/registry.hpp; this forwarding header is kept for a while
// (CHANGELOG.md, "The house, second step"). Include the new path.
#pragma once

#include "whizbang/registry/registry.hpp"
