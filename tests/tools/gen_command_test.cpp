// whizbang gen explain over the output dir whizbang_generate() wrote for explain_fixture.hpp.
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cli_test_run.hpp"
#include "rapidjson/document.h"

namespace whizbang::cli {
namespace {

namespace fs = std::filesystem;
using test::CliRun;
using test::run;

#ifdef WHIZBANG_EXPLAIN_DIR
constexpr const char* kExplainDir = WHIZBANG_EXPLAIN_DIR;
#else
constexpr const char* kExplainDir = nullptr;
#endif

class GenExplainTests : public ::testing::Test {
 protected:
  void SetUp() override {
    if (kExplainDir == nullptr) GTEST_SKIP() << "built without whizbang-gen";
  }
};

const rapidjson::Value* find_receptor(const rapidjson::Document& json, const std::string& id) {
  for (const rapidjson::Value& receptor : json["receptors"].GetArray()) {
    if (receptor["id"].GetString() == id) return &receptor;
  }
  return nullptr;
}

TEST_F(GenExplainTests, Json_ListsReceptorsWithStagesAndFlags) {
  const CliRun r = run({"gen", "explain", kExplainDir, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  rapidjson::Document json;
  json.Parse(r.out.c_str());
  ASSERT_FALSE(json.HasParseError()) << r.out;
  EXPECT_STREQ(json["target"].GetString(), "cli_explain_fixture");
  ASSERT_EQ(json["receptors"].Size(), 3u);
  ASSERT_EQ(json["messages"].Size(), 2u);

  const rapidjson::Value* place = find_receptor(json, "explain::PlaceOrderReceptor");
  ASSERT_NE(place, nullptr);
  EXPECT_STREQ((*place)["message"].GetString(), "explain::PlaceOrder");
  EXPECT_TRUE((*place)["default_stages"].GetBool());
  EXPECT_FALSE((*place)["idempotent"].GetBool());
  EXPECT_STREQ((*place)["response_type"].GetString(), "explain::OrderPlaced");

  const rapidjson::Value* project = find_receptor(json, "explain::ProjectOrder");
  ASSERT_NE(project, nullptr);
  ASSERT_EQ((*project)["stages"].Size(), 1u);
  EXPECT_STREQ((*project)["stages"][0].GetString(), "PostInboxInline");
  EXPECT_FALSE((*project)["default_stages"].GetBool());
  EXPECT_TRUE((*project)["idempotent"].GetBool());
  EXPECT_FALSE((*project)["always_fire"].GetBool());
  ASSERT_EQ((*project)["dependencies"].Size(), 1u);
  EXPECT_STREQ((*project)["dependencies"][0]["type"].GetString(), "explain::Clock");
  EXPECT_STREQ((*project)["source"]["file"].GetString(), "explain_fixture.hpp");
  EXPECT_GT((*project)["source"]["line"].GetInt(), 0);

  const rapidjson::Value* notify = find_receptor(json, "explain::NotifyCustomer");
  ASSERT_NE(notify, nullptr);
  EXPECT_TRUE((*notify)["always_fire"].GetBool());
  EXPECT_TRUE((*notify)["once_across_services"].GetBool());

  bool found_wire_name = false;
  for (const rapidjson::Value& message : json["messages"].GetArray()) {
    if (std::string(message["wire_name"].GetString()) != "explain.OrderPlaced") continue;
    found_wire_name = true;
    EXPECT_STREQ(message["kind"].GetString(), "event");
    EXPECT_EQ(message["receptor_count"].GetInt(), 2);
  }
  EXPECT_TRUE(found_wire_name);
}

TEST_F(GenExplainTests, Text_ShowsBothTables) {
  const CliRun r = run({"gen", "explain", kExplainDir});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* expected :
       {"target: cli_explain_fixture", "messages: 2", "receptors: 3", "explain.OrderPlaced",
        "explain::ProjectOrder", "PostInboxInline", "idempotent", "always_fire",
        "once_across_services", "(default)", "explain::Clock&", "explain_fixture.hpp:"}) {
    EXPECT_NE(r.out.find(expected), std::string::npos) << expected << "\n" << r.out;
  }
}

class GenExplainBadInputTests : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("whizbang-cli-tests-" + std::to_string(::getpid())) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    fs::remove_all(dir_);
    std::error_code ignored;
    fs::remove(dir_.parent_path(), ignored);  // this process's directory, once it is empty
  }
  fs::path dir_;
};

TEST_F(GenExplainBadInputTests, PrintsOneLineAndExits2) {
  const fs::path empty = dir_ / "empty";
  fs::create_directories(empty);
  const fs::path old_output = dir_ / "old";
  fs::create_directories(old_output);
  std::ofstream(old_output / "whizbang_registry.cpp") << "// generated\n";
  const fs::path broken = dir_ / "broken";
  fs::create_directories(broken);
  std::ofstream(broken / "whizbang_tables.json") << "{\"format\": 1, \"receptors\": [";
  const fs::path nested = dir_ / "nested";
  fs::create_directories(nested);
  std::ofstream(nested / "whizbang_tables.json")
      << std::string(200'000, '[') << std::string(200'000, ']');
  const fs::path wrong_format = dir_ / "wrong_format";
  fs::create_directories(wrong_format);
  std::ofstream(wrong_format / "whizbang_tables.json") << "{\"format\": 99}";
  const fs::path file = dir_ / "file.txt";
  std::ofstream(file) << "x";

  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"gen", "explain", (dir_ / "missing").string()}, "no such directory"},
      {{"gen", "explain", file.string()}, "is not a directory"},
      {{"gen", "explain", empty.string()}, "holds no generated files"},
      {{"gen", "explain", old_output.string()}, "no whizbang_tables.json"},
      {{"gen", "explain", broken.string()}, "is not valid JSON"},
      {{"gen", "explain", nested.string()}, "is not valid JSON"},
      {{"gen", "explain", wrong_format.string(), "--json"}, "is not tables format 1"},
      {{"gen", "explain"}, "gen explain: TARGET_DIR is required"},
      {{"gen", "explain", empty.string(), "--recent", "1"},
       "gen explain: unknown option --recent (options: --help, --json)"},
      {{"gen", "frobnicate"}, "unknown gen command 'frobnicate' (commands: explain)"},
  };
  for (const auto& [args, expected] : cases) {
    const CliRun r = run(args);
    EXPECT_EQ(r.code, kExitUsage) << expected << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir_ / "missing"));
}

}  // namespace
}  // namespace whizbang::cli
