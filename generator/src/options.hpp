// Command line of whizbang-gen.
//
//   whizbang-gen --target NAME --out-dir DIR [--root DIR] [--flags-file FILE]...
//                [--depfile FILE] [--resource-dir DIR] HEADER... [-- CLANG_ARG...]
//   whizbang-gen --list-diagnostics
//
// --flags-file holds one Clang argument per line (whizbang_generate() writes it from the
// target's include directories, definitions and -std). `@file` is deliberately not used: neither
// CommonOptionsParser nor the tooling driver expands it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace whizgen {

struct Options {
  std::string target;
  std::string out_dir;
  std::string root;
  std::vector<std::string> flags_files;
  std::string depfile;
  std::string resource_dir;
  std::vector<std::string> headers;
  std::vector<std::string> clang_args;  // after "--"
  bool list_diagnostics = false;
};

// nullopt (after printing why) on a bad command line.
std::optional<Options> parse_options(int argc, char** argv);

// Appends the arguments of a flags file (one per line, blank lines skipped).
bool read_flags_file(const std::string& path, std::vector<std::string>& args);

}  // namespace whizgen
