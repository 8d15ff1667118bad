// Runs `whizbang` commands in process or through the binary, a file's identity for "left
// untouched" checks, and JSON output parsed.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "rapidjson/document.h"

namespace whizbang::cli::test {

// `text` as a JSON document; a test failure when it does not parse.
inline rapidjson::Document parse_json(const std::string& text) {
  rapidjson::Document document;
  document.Parse(text.c_str());
  EXPECT_FALSE(document.HasParseError()) << text;
  return document;
}

struct CliRun {
  int code;
  std::string out;
  std::string err;
};

// A command line that must fail with a usage error naming `expected_error`.
struct BadInput {
  std::vector<std::string> args;
  std::string expected_error;
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

#ifdef WHIZBANG_CLI_PATH
// Runs the `whizbang` binary with `args` (each passed as one word), stdout and stderr captured in
// files of a private temp directory (never next to the store a test inspects).
inline CliRun run_binary(const std::vector<std::string>& args) {
  static std::atomic<int> counter{0};
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("whizbang-cli-run-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::filesystem::create_directories(dir);
  const auto quote = [](const std::string& word) {
    std::string quoted = "'";
    for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
  };
  std::string command = quote(WHIZBANG_CLI_PATH);
  for (const std::string& arg : args) command += " " + quote(arg);
  command += " >" + quote((dir / "out").string()) + " 2>" + quote((dir / "err").string());
  const int status = std::system(command.c_str());
  CliRun run{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_bytes(dir / "out"),
             read_bytes(dir / "err")};
  std::filesystem::remove_all(dir);
  return run;
}
#endif

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
