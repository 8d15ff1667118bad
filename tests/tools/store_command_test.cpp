// whizbang store inspect|stream over a real SQLite store, and every bad input: exit 2, one line,
// the file neither created nor modified.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "cli_test_run.hpp"
#include "rapidjson/document.h"
#include "store_test_support.hpp"
#include "whizbang/store/sqlite/sqlite_store_inspector.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"

namespace whizbang::cli {
namespace {

using store_test::inbox_message;
using store_test::OrderCreated;
using store_test::outbox_message;
using store_test::ShipOrderCommand;
using test::BadInput;
using test::CliRun;
using test::identity;
using test::listing;
using test::parse_json;
using test::run;

constexpr const char* kStream = "0190f3c4-1a2b-7c3d-8e4f-02a4b67f7356";

class StoreCommandTests : public ::testing::Test {
 protected:
  // Three events on kStream (appended to the event store by a work batch, each with a perspective
  // event), a command, two inbox rows and two receptor invocation records.
  void SetUp() override {
    path_ = dir_.file("orders.db");
    auto store = SqliteWorkStore::open(path_);
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE(
        (*store)->add_perspective_association("store_test::OrderCreated", "OrderSummary").ok());
    const Uuid stream = *Uuid::parse(kStream);
    std::vector<OutboxMessage> outbox;
    for (int i = 1; i <= 3; ++i) {
      outbox.push_back(outbox_message(OrderCreated{"o-" + std::to_string(i), i}, "orders", stream));
      event_ids_.push_back(outbox.back().message_id);
    }
    outbox.push_back(outbox_message(ShipOrderCommand{"o-1"}, "shipping"));
    ASSERT_TRUE((*store)->store_outbox_messages(outbox).ok());
    const std::vector<InboxMessage> inbox = {
        inbox_message(outbox_message(ShipOrderCommand{"in-1"}, "shipping")),
        inbox_message(outbox_message(ShipOrderCommand{"in-2"}, "shipping"))};
    ASSERT_TRUE((*store)->store_inbox_messages(inbox, MessageId::mint().uuid()).ok());
    WorkBatchRequest request;
    auto items = (*store)->process_work_batch(request);
    ASSERT_TRUE(items.ok()) << items.status();
    const std::vector<ReceptorInvocationRecord> records = {
        {"shop::Project", Stage::PostInboxInline, TimePoint(std::chrono::seconds(1'750'000'000)),
         std::chrono::microseconds(120), "orders", ""},
        {"shop::Notify", Stage::LocalImmediateDetached,
         TimePoint(std::chrono::seconds(1'750'000'001)), std::chrono::microseconds(80), "orders",
         "OrderSummary"}};
    ASSERT_TRUE((*store)->record_receptor_invocations(event_ids_[0], records).ok());
  }

  store_test::TempDir dir_;
  std::string path_;
  std::vector<MessageId> event_ids_;
};

TEST_F(StoreCommandTests, Inspect_Json_CountsEveryTable) {
  const auto before = identity(path_);
  const auto files_before = listing(std::filesystem::path(path_).parent_path());
  const CliRun r = run({"store", "inspect", path_, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const rapidjson::Document json = parse_json(r.out);
  ASSERT_TRUE(json.IsObject());
  EXPECT_EQ(json["schema_version"].GetInt(), SqliteWorkStore::latest_schema_version());
  const auto& counts = json["counts"];
  EXPECT_EQ(counts["outbox"].GetInt64(), 4);
  EXPECT_EQ(counts["inbox"].GetInt64(), 2);
  EXPECT_EQ(counts["event_store"].GetInt64(), 3);
  EXPECT_EQ(counts["perspective_events"].GetInt64(), 3);
  EXPECT_EQ(counts["receptor_invocations"].GetInt64(), 2);
  EXPECT_EQ(json["outbox"].Size(), 4u);
  EXPECT_EQ(json["inbox"].Size(), 2u);
  EXPECT_EQ(json["event_store"].Size(), 3u);
  EXPECT_EQ(json["perspective_events"].Size(), 3u);
  ASSERT_EQ(json["receptor_invocations"].Size(), 2u);
  // Newest first.
  EXPECT_STREQ(json["receptor_invocations"][0]["receptor_id"].GetString(), "shop::Notify");
  EXPECT_STREQ(json["receptor_invocations"][1]["stage"].GetString(), "PostInboxInline");
  EXPECT_STREQ(json["event_store"][0]["stream_id"].GetString(), kStream);
  // Stable keys: one column list per row type drives --json and the table.
  const std::pair<const char*, rapidjson::SizeType> keys[] = {{"outbox", 11},
                                                              {"inbox", 11},
                                                              {"event_store", 5},
                                                              {"perspective_events", 6},
                                                              {"receptor_invocations", 7}};
  for (const auto& [table, count] : keys) {
    EXPECT_EQ(json[table][0].MemberCount(), count) << table;
  }
  EXPECT_TRUE(json["outbox"][0]["is_event"].IsBool());
  EXPECT_TRUE(json["outbox"][0]["status_bits"].IsUint());
  EXPECT_TRUE(json["inbox"][0]["received_at"].IsString());
  EXPECT_EQ(json["receptor_invocations"][0]["duration_us"].GetInt64(), 80);
  EXPECT_TRUE(identity(path_) == before) << "inspect modified the store file";
  EXPECT_EQ(listing(std::filesystem::path(path_).parent_path()), files_before);
}

TEST_F(StoreCommandTests, Inspect_Recent_LimitsTheRowsNotTheCounts) {
  const CliRun r = run({"store", "inspect", path_, "--json", "--recent", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  const rapidjson::Document json = parse_json(r.out);
  EXPECT_EQ(json["counts"]["outbox"].GetInt64(), 4);
  EXPECT_EQ(json["outbox"].Size(), 1u);
  EXPECT_EQ(json["event_store"].Size(), 1u);
  const CliRun none = run({"store", "inspect", path_, "--json", "--recent=0"});
  ASSERT_EQ(none.code, 0) << none.err;
  EXPECT_EQ(parse_json(none.out)["outbox"].Size(), 0u);
}

TEST_F(StoreCommandTests, Inspect_Text_ShowsATablePerSection) {
  const CliRun r = run({"store", "inspect", path_, "--recent", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* expected :
       {"schema version", "outbox: 4 rows (2 most recent)", "inbox: 2 rows",
        "event store: 3 rows (2 most recent)", "perspective events: 3 rows",
        "receptor invocations: 2 rows", "MESSAGE ID", "RECEPTOR", "shop::Notify", "PostInboxInline",
        "OrderSummary", "store_test::OrderCreated"}) {
    EXPECT_NE(r.out.find(expected), std::string::npos) << expected << "\n" << r.out;
  }
}

TEST_F(StoreCommandTests, Stream_ListsEventsInVersionOrder) {
  const auto before = identity(path_);
  const CliRun r = run({"store", "stream", path_, kStream, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const rapidjson::Document json = parse_json(r.out);
  const auto& events = json["events"];
  ASSERT_EQ(events.Size(), 3u);
  for (rapidjson::SizeType i = 0; i < events.Size(); ++i) {
    EXPECT_EQ(events[i]["version"].GetInt64(), static_cast<std::int64_t>(i) + 1);
    EXPECT_EQ(events[i]["event_id"].GetString(), event_ids_[i].to_string());
    EXPECT_STREQ(events[i]["event_type"].GetString(), "store_test::OrderCreated");
    ASSERT_TRUE(events[i]["payload"].IsObject()) << r.out;
    EXPECT_EQ(events[i]["payload"]["order_id"].GetString(), "o-" + std::to_string(i + 1));
  }

  const CliRun text = run({"store", "stream", path_, kStream});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("3 events"), std::string::npos) << text.out;
  const std::size_t first = text.out.find(event_ids_[0].to_string());
  const std::size_t third = text.out.find(event_ids_[2].to_string());
  ASSERT_NE(first, std::string::npos);
  ASSERT_NE(third, std::string::npos);
  EXPECT_LT(first, third);
  EXPECT_NE(text.out.find("\"order_id\":\"o-2\""), std::string::npos) << text.out;
  EXPECT_TRUE(identity(path_) == before);
}

TEST_F(StoreCommandTests, Stream_DeeplyNestedEventData_PrintedAsTextNotACrash) {
  // A corrupt or hostile row: event_data nested far deeper than any payload. Parsed without a
  // depth bound, it overflowed the CLI's stack (SIGSEGV).
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  const std::string nested = std::string(200'000, '[') + std::string(200'000, ']');
  sqlite3_stmt* update = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "UPDATE wh_event_store SET event_data = ?1 WHERE version = 2",
                               -1, &update, nullptr),
            SQLITE_OK);
  sqlite3_bind_text(update, 1, nested.data(), static_cast<int>(nested.size()), SQLITE_STATIC);
  EXPECT_EQ(sqlite3_step(update), SQLITE_DONE);
  sqlite3_finalize(update);
  EXPECT_EQ(sqlite3_changes(db), 1);
  sqlite3_close(db);

  const CliRun r = run({"store", "stream", path_, kStream, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const rapidjson::Document json = parse_json(r.out);
  ASSERT_EQ(json["events"].Size(), 3u);
  ASSERT_TRUE(json["events"][1]["payload"].IsString());
  EXPECT_EQ(json["events"][1]["payload"].GetStringLength(), nested.size());
  EXPECT_TRUE(json["events"][2]["payload"].IsObject()) << "the rows after it are still decoded";
}

TEST_F(StoreCommandTests, Stream_Text_ControlCharactersInStoredTextAreEscaped) {
  // A stored type name carrying terminal escape sequences (clear screen, red, and a C1 CSI:
  // U+009B, which some terminals take for ESC [).
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "UPDATE wh_event_store SET event_type = 'evil' || char(27) || '[2J' || "
                         "char(27) || '[31m' || char(10) || 'forged line' || char(155) || '1m' "
                         "WHERE version = 1",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);

  const CliRun r = run({"store", "stream", path_, kStream});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\xc2\x9b"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("evil\\x1b[2J\\x1b[31m\\x0aforged line\\x9b1m"), std::string::npos) << r.out;
  // JSON output escapes them as JSON does.
  const CliRun json = run({"store", "stream", path_, kStream, "--json"});
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_EQ(json.out.find('\x1b'), std::string::npos);
}

TEST_F(StoreCommandTests, Stream_UnknownStream_IsEmpty) {
  const CliRun r = run({"store", "stream", path_, "0190f3c4-1a2b-7c3d-8e4f-000000000001"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("0 events"), std::string::npos);
}

TEST_F(StoreCommandTests, Inspector_OpensReadOnly) {
  auto inspector = SqliteStoreInspector::open(path_);
  ASSERT_TRUE(inspector.ok()) << inspector.status();
  auto events = (*inspector)->read_stream(*Uuid::parse(kStream));
  ASSERT_TRUE(events.ok());
  EXPECT_EQ(events->size(), 3u);
}

void expect_one_line_exit_2(const BadInput& c) {
  const CliRun r = run(c.args);
  EXPECT_EQ(r.code, kExitUsage) << c.expected_error << ": " << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(r.err.rfind("whizbang: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(c.expected_error), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST_F(StoreCommandTests, BadInput_PrintsOneLineExits2AndTouchesNothing) {
  const std::string missing = dir_.file("missing.db");
  const std::string text_file = dir_.file("notes.txt");
  std::ofstream(text_file) << "this is not a database, just some text that is long enough\n";
  const std::string empty_file = dir_.file("empty.db");
  std::ofstream{empty_file};
  const std::string foreign = dir_.file("foreign.db");
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(foreign.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t (x INTEGER)", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  const std::string directory = dir_.file("a_dir");
  std::filesystem::create_directories(directory);

  const auto files_before = listing(std::filesystem::path(path_).parent_path());
  const std::vector<std::string> checked = {path_, text_file, empty_file, foreign};
  std::vector<test::FileIdentity> before;
  for (const std::string& file : checked) before.push_back(identity(file));

  const std::vector<BadInput> cases = {
      {{"store", "inspect", missing}, "no such file"},
      {{"store", "inspect", missing, "--json"}, "no such file"},
      {{"store", "stream", missing, kStream}, "no such file"},
      {{"store", "inspect", directory}, "is a directory"},
      {{"store", "inspect", text_file}, "is not an SQLite database"},
      {{"store", "stream", text_file, kStream}, "is not an SQLite database"},
      {{"store", "inspect", empty_file}, "not a Whizbang store"},
      {{"store", "inspect", foreign}, "not a Whizbang store"},
      {{"store", "stream", foreign, kStream}, "not a Whizbang store"},
      {{"store", "stream", path_, "not-a-uuid"}, "STREAM_ID: malformed uuid"},
      {{"store", "stream", path_}, "store stream: STREAM_ID is required"},
      {{"store", "inspect"}, "store inspect: FILE is required"},
      {{"store", "inspect", path_, path_}, "store inspect: unexpected argument '" + path_ + "'"},
      {{"store", "inspect", path_, "--recent", "-1"}, "--recent: must be >= 0; got -1"},
      {{"store", "inspect", path_, "--recent", "1000001"}, "--recent: must be <= 1000000"},
      {{"store", "inspect", path_, "--recent", "x"}, "--recent: must be a whole number; got 'x'"},
      {{"store", "inspect", path_, "--bogus"},
       "store inspect: unknown option --bogus (options: --help, --pg, --recent, --json)"},
      {{"store", "frobnicate"},
       "unknown store command 'frobnicate' (commands: inspect, stream, dead-letters, requeue)"},
  };
  for (const BadInput& c : cases) expect_one_line_exit_2(c);

  EXPECT_FALSE(std::filesystem::exists(missing)) << "a missing store was created";
  for (std::size_t i = 0; i < checked.size(); ++i) {
    EXPECT_TRUE(identity(checked[i]) == before[i]) << checked[i] << " was modified";
  }
  EXPECT_EQ(listing(std::filesystem::path(path_).parent_path()), files_before);
}

TEST(StoreCommandHelpTests, Help_IsAvailableOnEveryCommand) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"store", "--help"}, "Usage: whizbang store [OPTIONS] SUBCOMMAND\n"},
      {{"store", "inspect", "--help"}, "Usage: whizbang store inspect [OPTIONS] FILE\n"},
      {{"store", "stream", "--help"}, "Usage: whizbang store stream [OPTIONS] FILE STREAM_ID\n"},
      {{"gen", "--help"}, "Usage: whizbang gen [OPTIONS] SUBCOMMAND\n"},
      {{"gen", "explain", "--help"}, "Usage: whizbang gen explain [OPTIONS] TARGET_DIR\n"}};
  for (const auto& [args, usage] : cases) {
    const CliRun r = run(args);
    EXPECT_EQ(r.code, 0) << usage;
    EXPECT_NE(r.out.find(usage), std::string::npos) << r.out;
  }
  const CliRun inspect = run({"store", "inspect", "--help"});
  EXPECT_NE(inspect.out.find("  --recent N                  rows per table (default 5, 0 for "
                             "counts only)\n"),
            std::string::npos)
      << inspect.out;
  EXPECT_NE(inspect.out.find("Opens FILE read-only"), std::string::npos) << inspect.out;
  const CliRun top = run({"--help"});
  EXPECT_NE(top.out.find("store"), std::string::npos);
  EXPECT_NE(top.out.find("gen "), std::string::npos);
}

TEST_F(StoreCommandTests, Binary_ExitsZeroForAStoreAndTwoForAMissingFile) {
  const std::string binary = WHIZBANG_CLI_PATH;
  EXPECT_EQ(
      WEXITSTATUS(std::system((binary + " store inspect '" + path_ + "' >/dev/null").c_str())), 0);
  const std::string missing = dir_.file("nope.db");
  EXPECT_EQ(
      WEXITSTATUS(std::system((binary + " store inspect '" + missing + "' 2>/dev/null").c_str())),
      2);
  EXPECT_FALSE(std::filesystem::exists(missing));
}

}  // namespace
}  // namespace whizbang::cli
