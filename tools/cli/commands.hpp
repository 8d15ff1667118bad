// The `whizbang` tool's entry point: main() calls it, and so do the tests, in process.
#pragma once

#include <string>
#include <vector>

#include "cli/cli.hpp"

namespace whizbang::cli {

// whizbang <command> ...: `args` is argv without the program name; returns the exit code.
int run_cli(const std::vector<std::string>& args, const Io& io);

}  // namespace whizbang::cli
