// A service's admin tool: the installed `whizbang` commands (Whizbang::cli) run with the
// consumer's generated registry, so `store stream --upcast` knows its types.
#include <iostream>
#include <string>
#include <vector>

#include <whizbang/cli/admin_cli.hpp>

#include "whizbang_registry.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return whizbang::cli::run_cli(args, {std::cout, std::cerr},
                                whizbang::generated::admin::registry());
}
