// The top of the `whizbang` command tree; each command file adds its own subcommands.
#include "cli/command_line.hpp"
#include "cli/commands.hpp"

namespace whizbang::cli {

namespace {

int run_with(const std::vector<std::string>& args, const Io& io, const Registry* registry) {
  CommandTree tree(
      "whizbang: ids, stores and generated tables of Whizbang for C++.",
      "Every command accepts --help. Bad input prints one line on stderr and exits 2.");
  add_id_commands(tree);
  add_store_commands(tree, registry);
  add_perspective_commands(tree);
  add_gen_commands(tree);
  add_demo_command(tree);
  return tree.run(args, io);
}

}  // namespace

int run_cli(const std::vector<std::string>& args, const Io& io) {
  return run_with(args, io, nullptr);
}

int run_cli(const std::vector<std::string>& args, const Io& io, const Registry& registry) {
  return run_with(args, io, &registry);
}

}  // namespace whizbang::cli
