// The `whizbang` commands as a library (Whizbang::cli), for a service's own admin tool: linked
// with the service's generated registry, `store stream --upcast` prints stored payloads decoded
// and upcast to their types' current shapes, which the generic `whizbang` binary cannot (it knows
// no user types). docs/guide/07-perspectives.md, "Event versions".
//
//   #include <iostream>
//   #include <whizbang/cli/admin_cli.hpp>
//   #include "whizbang_registry.hpp"
//
//   int main(int argc, char** argv) {
//     return whizbang::cli::run_cli({argv + 1, argv + argc}, {std::cout, std::cerr},
//                                   whizbang::generated::shop::registry());
//   }
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace whizbang {
class Registry;
}  // namespace whizbang

namespace whizbang::cli {

// Where a command writes its output and its errors.
struct Io {
  std::ostream& out;
  std::ostream& err;
};

// whizbang <command> ...: `args` is argv without the program name; returns the exit code
// (0 success, 1 failure, 2 bad input).
int run_cli(const std::vector<std::string>& args, const Io& io);

// The same commands with the types of `registry` known (`store stream --upcast`).
int run_cli(const std::vector<std::string>& args, const Io& io, const Registry& registry);

}  // namespace whizbang::cli
