// The `whizbang` tool's entry point: main() calls it, and so do the tests, in process. The
// declarations are public (whizbang/cli/admin_cli.hpp): a service's admin tool links
// Whizbang::cli and calls run_cli with its registry.
#pragma once

#include "cli/cli.hpp"
#include "whizbang/cli/admin_cli.hpp"
