// Top-level command table of the `whizbang` tool.
#include <ostream>

#include "absl/strings/str_cat.h"
#include "cli/commands.hpp"

namespace whizbang::cli {
namespace {

constexpr std::string_view kHelp =
    R"(usage: whizbang <command> [options]

commands:
  id      mint, derive and inspect message ids (whizbang id --help)
  store   a SQLite store: counts, recent rows, one stream's events and dead letters (read-only);
          requeue dead letters (whizbang store --help)
  gen     the receptor and message tables whizbang-gen generated (whizbang gen --help)
  demo    a short tour: minted ids, derived emission ids, a retry re-deriving the same ids

Every command accepts --help. Bad input prints one line on stderr and exits 2.
)";

}  // namespace

int run_cli(const std::vector<std::string>& args, const Io& io) {
  if (args.empty()) {
    io.err << kHelp;
    return kExitUsage;
  }
  const std::string& command = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "--help" || command == "-h" || command == "help") {
    io.out << kHelp;
    return kExitOk;
  }
  if (command == "id") return run_id_command(rest, io);
  if (command == "store") return run_store_command(rest, io);
  if (command == "gen") return run_gen_command(rest, io);
  if (command == "demo") return run_demo_command(rest, io);
  return usage_error(io, absl::StrCat("unknown command '", command, "' (try: whizbang --help)"));
}

}  // namespace whizbang::cli
