// Compiled by LayerTests.PrivateHeader*: a private header of the workers layer, named as the
// workers layer names it.
#include "group_commit.hpp"
