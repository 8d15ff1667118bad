// The `whizbang` command tree, parsed by CLI11. Internal to the tool: CLI11 is a private
// dependency of whizbang_cli, so only its .cpp files include this header.
//
// Each command file adds its subcommands with what they run; CommandTree::run parses, answers
// --help on every level, reports bad input as one line on stderr (exit 2) and runs the command.
//
//   auto options = std::make_shared<NewOptions>();
//   CLI::App* command = tree.add_command(id, "new", "mint fresh ids",
//                                        [options](const Io& io) { return id_new(*options, io); });
//   command->add_option("--count", options->count, "how many")->check(whole_number(1));
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "cli/cli.hpp"

namespace whizbang {
class Registry;
}  // namespace whizbang

namespace whizbang::cli {

// What a chosen command does, with the values CLI11 parsed into its options.
using CommandRun = std::function<int(const Io&)>;

class CommandTree {
 public:
  CommandTree(std::string description, std::string footer);

  CLI::App& root() { return root_; }
  // A command that only holds subcommands (`store`): one of them must follow; alone it prints
  // its help on stderr and exits 2.
  CLI::App* add_group(CLI::App& parent, const std::string& name, const std::string& description);
  // A command that runs `run` when it is the one chosen.
  CLI::App* add_command(CLI::App& parent, const std::string& name, const std::string& description,
                        CommandRun run);

  // Parses `args` (argv without the program name) and runs the chosen command.
  int run(const std::vector<std::string>& args, const Io& io);

 private:
  CLI::App root_;
  std::map<const CLI::App*, CommandRun> runs_;
};

// A whole number in [min, max]; anything else fails with "--limit: must be >= 1; got 0".
CLI::Validator whole_number(std::int64_t min,
                            std::int64_t max = std::numeric_limits<std::int64_t>::max());

// Each command file's part of the tree.
void add_id_commands(CommandTree& tree);
// `registry`: the generated registry of the program running the CLI (run_cli's overload), which
// `store stream --upcast` decodes payloads with; nullptr in the generic `whizbang` binary.
void add_store_commands(CommandTree& tree, const Registry* registry = nullptr);
void add_gen_commands(CommandTree& tree);
void add_demo_command(CommandTree& tree);
void add_perspective_commands(CommandTree& tree);

}  // namespace whizbang::cli
