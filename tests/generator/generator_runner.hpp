// Runs whizbang-gen as a subprocess for the golden and diagnostic tests.
#pragma once

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace whizbang_test {

struct GeneratorRun {
  int exit_code = 0;
  std::string stderr_text;
};

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Same arguments as update_golden.sh.
inline GeneratorRun run_generator(const std::string& target, const std::filesystem::path& header,
                                  const std::filesystem::path& out_dir) {
  const std::string repo = WHIZBANG_REPO_DIR;
  const std::filesystem::path root = header.parent_path();
  const std::filesystem::path err = out_dir.string() + ".stderr";
  std::filesystem::create_directories(out_dir.parent_path());
  const std::string command = std::string("'") + WHIZBANG_GEN_PATH + "' --target " + target +
                              " --out-dir '" + out_dir.string() + "' --root '" + root.string() +
                              "' '" + header.string() + "' -- -std=c++20 -I'" + repo +
                              "/attributes/include' -I'" + repo + "/runtime/include' -I'" +
                              root.string() + "' 2> '" + err.string() + "'";
  const int status = std::system(command.c_str());
  GeneratorRun run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.stderr_text = read_file(err);
  return run;
}

inline std::vector<std::string> case_names(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".hpp") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace whizbang_test
