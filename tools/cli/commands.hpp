// The `whizbang` subcommands. Each takes the arguments after its name and returns an exit code.
#pragma once

#include <string>
#include <vector>

#include "cli/cli.hpp"

namespace whizbang::cli {

// whizbang id new|derive|composite-child|inspect ...
int run_id_command(const std::vector<std::string>& args, const Io& io);
// whizbang demo: a short tour of ids and derived identity.
int run_demo_command(const std::vector<std::string>& args, const Io& io);
// whizbang store inspect|stream|dead-letters ...: read-only views of a SQLite work store;
// whizbang store requeue ...: gives its dead letters a fresh set of attempts.
int run_store_command(const std::vector<std::string>& args, const Io& io);
// whizbang gen explain ...: the tables whizbang-gen generated for a target.
int run_gen_command(const std::vector<std::string>& args, const Io& io);
// whizbang <command> ...: the entry point main() calls.
int run_cli(const std::vector<std::string>& args, const Io& io);

}  // namespace whizbang::cli
