#include "options.hpp"

#include <fstream>
#include <iostream>

namespace whizgen {
namespace {

void usage() {
  std::cerr
      << "usage: whizbang-gen --target NAME --out-dir DIR [--root DIR] [--flags-file FILE]...\n"
         "                    [--depfile FILE] [--resource-dir DIR] HEADER... [-- CLANG_ARG...]\n"
         "       whizbang-gen --list-diagnostics\n";
}

}  // namespace

std::optional<Options> parse_options(int argc, char** argv) {
  Options options;
#ifdef WHIZBANG_CLANG_RESOURCE_DIR
  options.resource_dir = WHIZBANG_CLANG_RESOURCE_DIR;
#endif
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](std::string& out) {
      if (i + 1 >= argc) return false;
      out = argv[++i];
      return true;
    };
    bool ok = true;
    if (arg == "--") {
      for (++i; i < argc; ++i) options.clang_args.push_back(argv[i]);
      break;
    } else if (arg == "--target") {
      ok = value(options.target);
    } else if (arg == "--out-dir") {
      ok = value(options.out_dir);
    } else if (arg == "--root") {
      ok = value(options.root);
    } else if (arg == "--depfile") {
      ok = value(options.depfile);
    } else if (arg == "--resource-dir") {
      ok = value(options.resource_dir);
    } else if (arg == "--flags-file") {
      std::string file;
      ok = value(file);
      options.flags_files.push_back(file);
    } else if (arg == "--list-diagnostics") {
      options.list_diagnostics = true;
    } else if (!arg.empty() && arg[0] == '-') {
      std::cerr << "whizbang-gen: unknown option " << arg << "\n";
      ok = false;
    } else {
      options.headers.push_back(arg);
    }
    if (!ok) {
      usage();
      return std::nullopt;
    }
  }
  if (options.list_diagnostics) return options;
  if (options.target.empty() || options.out_dir.empty() || options.headers.empty()) {
    usage();
    return std::nullopt;
  }
  return options;
}

bool read_flags_file(const std::string& path, std::vector<std::string>& args) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) args.push_back(line);
  }
  return true;
}

}  // namespace whizgen
