// TempDir: a directory for one test's files (SQLite stores, CLI output), removed with the test.
//
// Named after the running test and the process, so suites that run at once (ctest -j, a
// sanitizer build beside the regular one) never share a directory.
//
//   whizbang_test::TempDir dir;
//   auto store = whizbang::SqliteWorkStore::open(dir.file("orders.db"));
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace whizbang_test {

class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info != nullptr ? std::string(info->test_suite_name()) + "." + info->name()
                                       : std::string("outside-a-test");
    for (char& c : name) c = c == '/' ? '_' : c;
    path_ = std::filesystem::temp_directory_path() /
            ("whizbang-tests-" + std::to_string(::getpid())) / name;
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string file(std::string_view name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace whizbang_test
