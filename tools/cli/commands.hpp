// The `whizbang` tool's entry point: main() calls it, and so do the tests, in process.
#pragma once

#include <string>
#include <vector>

#include "cli/cli.hpp"

namespace whizbang {
class Registry;
}  // namespace whizbang

namespace whizbang::cli {

// whizbang <command> ...: `args` is argv without the program name; returns the exit code.
int run_cli(const std::vector<std::string>& args, const Io& io);

// The same commands in a program linked with a generated registry (a service's admin tool):
// `store stream --upcast` then prints each payload decoded and upcast to its type's current
// shape, as the service's own read paths see it (docs/guide/07-perspectives.md). The generic
// `whizbang` binary knows no user types and refuses --upcast.
int run_cli(const std::vector<std::string>& args, const Io& io, const Registry& registry);

}  // namespace whizbang::cli
