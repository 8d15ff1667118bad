// Runs `whizbang` commands in process, and a file's identity for "left untouched" checks.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.hpp"

namespace whizbang::cli::test {

struct CliRun {
  int code;
  std::string out;
  std::string err;
};

inline CliRun run(std::vector<std::string> args) {
  std::ostringstream out, err;
  const int code = run_cli(args, {out, err});
  return {code, out.str(), err.str()};
}

inline std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// Bytes and mtime: equal before and after means the command neither wrote nor touched it.
struct FileIdentity {
  std::string bytes;
  std::filesystem::file_time_type mtime;
  friend bool operator==(const FileIdentity&, const FileIdentity&) = default;
};

inline FileIdentity identity(const std::filesystem::path& path) {
  return {read_bytes(path), std::filesystem::last_write_time(path)};
}

// The names in `dir`, sorted.
inline std::vector<std::string> listing(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace whizbang::cli::test
