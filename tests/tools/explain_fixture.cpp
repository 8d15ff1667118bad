// Compiles explain_fixture.hpp with its generated registry (whizbang_generate adds the rest).
#include "explain_fixture.hpp"

#include "whizbang_registry.hpp"
