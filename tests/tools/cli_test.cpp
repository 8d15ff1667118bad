// The `whizbang` tool: commands in process, and exit codes through the real binary.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <cstdio>
#include <sstream>

#include "cli/commands.hpp"
#include "cli_test_run.hpp"
#include "whizbang/ids/derived_identity.hpp"

namespace whizbang::cli {
namespace {

using test::BadInput;
using test::CliRun;
using test::run;

TEST(WhizbangCliTests, IdNew_PrintsOneV7IdPerLine) {
  const CliRun r = run({"id", "new", "--count", "3"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line, previous;
  int count = 0;
  while (std::getline(lines, line)) {
    const auto id = MessageId::parse(line);
    ASSERT_TRUE(id.ok()) << line;
    EXPECT_LT(previous, line);
    previous = line;
    ++count;
  }
  EXPECT_EQ(count, 3);
}

TEST(WhizbangCliTests, IdNew_Json_ListsTheIds) {
  const CliRun r = run({"id", "new", "--json"});
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(r.out.rfind("{\"ids\":[\"", 0), 0u) << r.out;
}

TEST(WhizbangCliTests, IdDerive_MatchesAReferenceVector) {
  const CliRun r = run({"id", "derive", "--source", "34c6a999-8118-7194-8a3a-be71e66c0e98",
                        "--service", "billing", "--handler", "app::billing::ChargeCard", "--type",
                        "app::orders::OrderShipped", "--ordinal", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "34c6a999-8118-7194-8a3a-002ccb95d060\n");
}

TEST(WhizbangCliTests, IdDerive_WithoutHandler_UsesAnEmptyHandler) {
  const CliRun r =
      run({"id", "derive", "--source", "239ec2c0-63fe-7958-941e-0e9af768064f", "--service",
           "billing", "--type", "InventoryUpdated", "--ordinal", "42", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "{\"id\":\"239ec2c0-63fe-7958-941e-02a4b67f7356\"}\n");
}

TEST(WhizbangCliTests, IdCompositeChild_MatchesAReferenceVector) {
  const CliRun r =
      run({"id", "composite-child", "--composite", "53c8c85a-d6ff-733b-a883-10cc2fb71eac", "--type",
           "app::orders::OrderShipped", "--ordinal", "16"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "53c8c85a-d6ff-733b-a883-01074bca4779\n");
}

// The id a request's idempotency key gives its message (docs/guide/05-emission-identity.md), as
// tests/data/dispatch-key-identity.json has it.
TEST(WhizbangCliTests, IdKeyed_MatchesAReferenceVector) {
  const CliRun r = run({"id", "keyed", "--service", "orders", "--type", "shop::PlaceOrder", "--key",
                        "req-42", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "{\"id\":\"00692e5b-cc9b-7c46-846a-00051be52566\"}\n");
}

TEST(WhizbangCliTests, IdInspect_ShowsVersionTimestampCounterAndOrdinal) {
  const CliRun r = run({"id", "inspect", "0190f3c4-1a2b-7c3d-8e4f-02a4b67f7356"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("version:       7"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2024-07-"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ordinal field: 42"), std::string::npos) << r.out;
  const CliRun json = run({"id", "inspect", "0190f3c4-1a2b-7c3d-8e4f-02a4b67f7356", "--json"});
  EXPECT_NE(json.out.find("\"ordinal_field\":42"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"counter\":"), std::string::npos);
}

TEST(WhizbangCliTests, IdInspect_NonV7Id_SaysSo) {
  const CliRun r = run({"id", "inspect", "3f2504e0-4f89-41d3-9a0c-0305e82c3301"});
  ASSERT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("not a version 7"), std::string::npos);
}

TEST(WhizbangCliTests, BadInput_PrintsOneLineNamingTheProblemAndExits2) {
  const std::vector<BadInput> cases = {
      {{"id", "derive", "--source", "nope", "--service", "s", "--type", "t", "--ordinal", "0"},
       "malformed uuid"},
      {{"id", "derive", "--source", "239ec2c0-63fe-7958-941e-0e9af768064f", "--service", "s",
        "--type", "t", "--ordinal", "-1"},
       "id derive: --ordinal: must be >= 0; got -1 (try: whizbang id derive --help)"},
      {{"id", "derive", "--source", "239ec2c0-63fe-7958-941e-0e9af768064f", "--type", "t",
        "--ordinal", "1"},
       "id derive: --service is required (try: whizbang id derive --help)"},
      {{"id", "derive", "--source", "239ec2c0-63fe-7958-941e-0e9af768064f", "--service", "s",
        "--type", "t", "--ordinal", "x1"},
       "--ordinal: must be a whole number; got 'x1'"},
      {{"id", "new", "--count", "0"}, "id new: --count: must be >= 1; got 0"},
      {{"id", "new", "--count"}, "id new: --count needs a value"},
      {{"id", "new", "--count", "--json"}, "--count: needs a value; got the option --json"},
      {{"id", "new", "--json=false"}, "id new: --json takes no value"},
      // An unknown option is named before the required options it leaves missing.
      {{"id", "derive", "--bogus", "1"},
       "id derive: unknown option --bogus (options: --help, "
       "--source, --service, --handler, --type, --ordinal, --json)"},
      {{"id", "inspect"}, "id inspect: ID is required"},
      {{"id", "inspect", "0190f3c4-1a2b-7c3d-8e4f-02a4b67f7356", "extra"},
       "id inspect: unexpected argument 'extra' (try: whizbang id inspect --help)"},
      {{"id", "frobnicate"},
       "unknown id command 'frobnicate' (commands: new, derive, composite-child, keyed, "
       "inspect)"},
      {{"nope"}, "unknown command 'nope' (commands: id, store, perspective, gen, demo)"},
      {{"--bogus"}, "unknown option --bogus (options: --help)"},
      {{"demo", "now"}, "demo: unexpected argument 'now'"},
      {{"id", "composite-child", "--composite", "00000000-0000-0000-0000-000000000000", "--type",
        "t", "--ordinal", "1"},
       "nil uuid"},
  };
  for (const auto& c : cases) {
    const CliRun r = run(c.args);
    EXPECT_EQ(r.code, kExitUsage) << c.expected_error;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find(c.expected_error), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(WhizbangCliTests, Help_IsAvailableOnEveryCommand) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--help"}, "Usage: whizbang [OPTIONS] SUBCOMMAND\n"},
      {{"-h"}, "Usage: whizbang [OPTIONS] SUBCOMMAND\n"},
      {{"id", "--help"}, "Usage: whizbang id [OPTIONS] SUBCOMMAND\n"},
      {{"id", "derive", "--help"}, "Usage: whizbang id derive [OPTIONS]\n"},
      {{"id", "inspect", "-h"}, "Usage: whizbang id inspect [OPTIONS] ID\n"},
      {{"demo", "--help"}, "Usage: whizbang demo [OPTIONS]\n"}};
  for (const auto& [args, usage] : cases) {
    const CliRun r = run(args);
    EXPECT_EQ(r.code, 0) << usage;
    EXPECT_NE(r.out.find(usage), std::string::npos) << r.out;
    EXPECT_EQ(r.err, "");
  }
}

TEST(WhizbangCliTests, TopLevelHelp_ListsEveryCommandWithWhatItDoes) {
  const CliRun r = run({"--help"});
  ASSERT_EQ(r.code, kExitOk);
  EXPECT_EQ(r.err, "");
  for (const char* line :
       {"  id                          mint, derive and inspect message ids\n",
        "  store                       a store's rows, streams and dead letters (SQLite or",
        "  gen                         the receptor and message tables whizbang-gen generated\n",
        "  demo                        a short tour:",
        "Every command accepts --help. Bad input prints one line on stderr and exits 2.\n"}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  }
}

TEST(WhizbangCliTests, SubcommandHelp_ListsItsOptionsAndWhichAreRequired) {
  const CliRun r = run({"id", "derive", "--help"});
  ASSERT_EQ(r.code, kExitOk);
  EXPECT_EQ(r.out.rfind("the id a cascaded emission derives\n", 0), 0u) << r.out;
  for (const char* line : {"  --source ID REQUIRED        the id of the message being handled\n",
                           "  --handler H                 the emitting handler (default none)\n",
                           "  --ordinal N REQUIRED", "  --json                      "}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  }
  // --help wins over what else the line holds, so it works on a half-typed command too.
  const CliRun partial = run({"id", "derive", "--source", "x", "--help"});
  EXPECT_EQ(partial.code, kExitOk);
  EXPECT_EQ(partial.out, r.out);
}

TEST(WhizbangCliTests, MissingRequiredOption_NamesItAndWhereHelpIs) {
  const CliRun r = run({"id", "composite-child", "--composite",
                        "53c8c85a-d6ff-733b-a883-10cc2fb71eac", "--type", "T", "--json"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "whizbang: id composite-child: --ordinal is required (try: whizbang id "
            "composite-child --help)\n");
}

TEST(WhizbangCliTests, UnknownOption_ListsTheOptionsOfThatCommand) {
  const CliRun r = run({"id", "new", "--cuont=3"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "whizbang: id new: unknown option --cuont (options: --help, --count, --json)\n");
}

TEST(WhizbangCliTests, CommandWithoutItsSubcommand_PrintsItsHelpOnStderrAndExits2) {
  for (const auto& [args, usage] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{}, "Usage: whizbang [OPTIONS] SUBCOMMAND\n"},
           {{"id"}, "Usage: whizbang id [OPTIONS] SUBCOMMAND\n"},
           {{"store"}, "Usage: whizbang store [OPTIONS] SUBCOMMAND\n"}}) {
    const CliRun r = run(args);
    EXPECT_EQ(r.code, kExitUsage) << usage;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find(usage), std::string::npos) << r.err;
  }
}

TEST(WhizbangCliTests, Demo_ShowsARetryDerivingTheSameIds) {
  const CliRun r = run({"demo"});
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("same id"), std::string::npos);
  EXPECT_NE(r.out.find("demo: ok"), std::string::npos);
}

TEST(WhizbangCliTests, Binary_ExitsZeroOnSuccessAndTwoOnBadInput) {
  const std::string binary = WHIZBANG_CLI_PATH;
  EXPECT_EQ(WEXITSTATUS(std::system((binary + " id new >/dev/null").c_str())), 0);
  EXPECT_EQ(WEXITSTATUS(std::system((binary + " id inspect zz 2>/dev/null").c_str())), 2);
}

}  // namespace
}  // namespace whizbang::cli
