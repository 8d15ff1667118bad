// Diagnostic tests: each tests/generator/diagnostics/<case>.hpp marks the lines that must produce
// an error with `// expected-error WHIZ0NN` (several codes may follow on one line). The generator
// must report exactly those (line, code) pairs, clang-style, exit non-zero and write no files.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "generator_runner.hpp"

namespace {

namespace fs = std::filesystem;

using Expectation = std::multiset<std::pair<int, std::string>>;

Expectation expected_errors(const std::string& text) {
  Expectation out;
  std::istringstream lines(text);
  std::string line;
  static const std::regex kCode("WHIZ\\d{3}");
  for (int number = 1; std::getline(lines, line); ++number) {
    const std::size_t at = line.find("// expected-error");
    if (at == std::string::npos) continue;
    const std::string tail = line.substr(at);
    for (std::sregex_iterator it(tail.begin(), tail.end(), kCode), end; it != end; ++it) {
      out.insert({number, it->str()});
    }
  }
  return out;
}

Expectation actual_errors(const std::string& stderr_text, const std::string& file,
                          std::vector<std::string>* unexpected_lines) {
  Expectation out;
  static const std::regex kLine("^(.*):(\\d+):(\\d+): error: (WHIZ\\d{3}) .+$");
  std::istringstream lines(stderr_text);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch match;
    if (std::regex_match(line, match, kLine) && fs::path(match[1].str()) == fs::path(file)) {
      out.insert({std::stoi(match[2]), match[4]});
    } else {
      unexpected_lines->push_back(line);
    }
  }
  return out;
}

class DiagnosticTests : public ::testing::TestWithParam<std::string> {};

TEST_P(DiagnosticTests, ReportsExactlyTheAnnotatedErrors) {
  const std::string name = GetParam();
  const fs::path header = fs::path(WHIZBANG_TEST_DIR) / "diagnostics" / (name + ".hpp");
  const fs::path out = fs::path(WHIZBANG_TEST_TMP) / "diagnostics" / name;
  fs::remove_all(out);
  const auto run = whizbang_test::run_generator(name, header, out);

  const Expectation expected = expected_errors(whizbang_test::read_file(header));
  ASSERT_FALSE(expected.empty()) << "no expected-error annotations in " << header;
  std::vector<std::string> unexpected;
  const Expectation actual = actual_errors(run.stderr_text, header.string(), &unexpected);
  EXPECT_NE(run.exit_code, 0);
  EXPECT_EQ(actual, expected) << run.stderr_text;
  EXPECT_TRUE(unexpected.empty()) << run.stderr_text;
  EXPECT_FALSE(fs::exists(out / "whizbang_messages.hpp")) << "partial output written";
  EXPECT_FALSE(fs::exists(out / "whizbang_registry.cpp")) << "partial output written";
}

INSTANTIATE_TEST_SUITE_P(
    Cases, DiagnosticTests,
    ::testing::ValuesIn(whizbang_test::case_names(std::string(WHIZBANG_TEST_DIR) + "/diagnostics")),
    [](const ::testing::TestParamInfo<std::string>& param) { return param.param; });

}  // namespace
