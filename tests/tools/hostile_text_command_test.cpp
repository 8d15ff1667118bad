// whizbang store dead-letters|inspect|stream over stored text a sender or a failing handler chose:
// invalid UTF-8, terminal escapes, BEL, NUL, DEL and C1 controls in a message type, a destination,
// an error and an event's payload. --json must stay valid UTF-8 and valid JSON (a strict parser
// reads it); the text tables must stay valid UTF-8 with every control shown as \xNN.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

#include "cli_test_run.hpp"
#include "fmt/format.h"
#include "rapidjson/document.h"
#include "rapidjson/error/en.h"
#include "store_test_support.hpp"
#include "support/utf8_check.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"

namespace whizbang::cli {
namespace {

using store_test::OrderCreated;
using store_test::outbox_message;
using store_test::ShipOrderCommand;
using test::CliRun;
using test::run_binary;

constexpr const char* kHostileStream = "0190f3c4-1a2b-7c3d-8e4f-02a4b67f7356";

// The hostile bytes (as SQL hex literals, stored as TEXT) and what a reader of the JSON gets back:
// controls as themselves (escaped \u00XX on the wire), each invalid byte as U+FFFD.
// "shop::\xff\xfeEvil\x1b[31m"
constexpr const char* kTypeHex = "73686f703a3aFFFE4576696c1b5b33316d";
constexpr const char* kTypeRead =
    "shop::\xef\xbf\xbd\xef\xbf\xbd"
    "Evil\x1b[31m";
// "ship\xc3(ing" (a truncated two-byte sequence before '(') + BEL
constexpr const char* kDestinationHex = "73686970C328696e6707";
constexpr const char* kDestinationRead = "ship\xef\xbf\xbd(ing\x07";
// "err \xed\xa0\x80 \x7f \xc2\x9b \x1b]0;title\x07 \xf4\x90\x80\x80 end" (a surrogate, DEL, a C1
// control, an OSC title sequence, a code point past U+10FFFF)
constexpr const char* kErrorHex =
    "65727220EDA08020"        // "err " and a surrogate
    "7F20"                    // DEL
    "C29B20"                  // the C1 control CSI
    "1B5D303B7469746C650720"  // ESC ] 0;title BEL: sets a terminal's title
    "F490808020"              // past U+10FFFF
    "656e64";

rapidjson::Document parse_strictly(const std::string& text) {
  EXPECT_TRUE(whizbang_test::is_valid_utf8(text)) << text;
  rapidjson::Document document;
  document.Parse<rapidjson::kParseValidateEncodingFlag>(text.c_str(), text.size());
  EXPECT_FALSE(document.HasParseError()) << rapidjson::GetParseError_En(document.GetParseError())
                                         << " at " << document.GetErrorOffset() << ": " << text;
  return document;
}

void expect_no_raw_controls(const std::string& text) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') continue;
    EXPECT_FALSE(byte < 0x20 || byte == 0x7F) << "raw control " << int(byte) << " in: " << text;
  }
  EXPECT_EQ(text.find("\xc2\x9b"), std::string::npos) << "raw C1 control in: " << text;
}

class HostileStoredTextTests : public ::testing::Test {
 protected:
  // One command dead-lettered, then its type, destination and error overwritten with hostile
  // bytes; one event on kHostileStream whose payload is not valid UTF-8.
  void SetUp() override {
    path_ = dir_.file("orders.db");
    {
      auto store = SqliteWorkStore::open(path_);
      ASSERT_TRUE(store.ok()) << store.status();
      const OutboxMessage command = outbox_message(ShipOrderCommand{"o-1"}, "shipping");
      const OutboxMessage event =
          outbox_message(OrderCreated{"o-1", 1}, std::nullopt, *Uuid::parse(kHostileStream));
      ASSERT_TRUE((*store)->store_outbox_messages(std::vector{command, event}).ok());
      WorkBatchRequest request;
      request.failures.push_back({WorkSource::Outbox, command.message_id, MessageStatus::None,
                                  "placeholder", FailureReason::TransportException,
                                  /*dead_letter=*/true});
      ASSERT_TRUE((*store)->process_work_batch(request).ok());
    }
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    const std::string sql = fmt::format(
        "UPDATE wh_outbox SET message_type = CAST(X'{}' AS TEXT), destination = CAST(X'{}' AS "
        "TEXT), error = CAST(X'{}' AS TEXT) WHERE error = 'placeholder';"
        // The payload is not JSON (printed as a string): {"x": "\xff\udc00"' . The metadata
        // escapes a lone low surrogate, which a lenient parser decodes to ill-formed UTF-8.
        "UPDATE wh_event_store SET event_data = CAST(X'7B2278223A2022FF5C75646330302227' AS "
        "TEXT), metadata = '{{\"m\":\"\\udc00\"}}';",
        kTypeHex, kDestinationHex, kErrorHex);
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
        << (error != nullptr ? error : "");
    sqlite3_free(error);
    EXPECT_EQ(sqlite3_changes(db), 1);
    sqlite3_close(db);
  }

  store_test::TempDir dir_;
  std::string path_;
};

TEST_F(HostileStoredTextTests, DeadLettersJson_IsValidUtf8AndValidJson) {
  const CliRun r = run_binary({"store", "dead-letters", path_, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const rapidjson::Document json = parse_strictly(r.out);
  ASSERT_TRUE(json.IsArray() && json.Size() == 1u) << r.out;
  const rapidjson::Value& letter = json[0];
  EXPECT_EQ(std::string(letter["message_type"].GetString()), kTypeRead);
  EXPECT_EQ(std::string(letter["target"].GetString()), kDestinationRead);
  EXPECT_EQ(std::string(letter["error"].GetString()),
            "err \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \x7f \xc2\x9b \x1b]0;title\x07 "
            "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd end");
  // On the wire every control character is a \u00XX escape, so a terminal shows none of them.
  expect_no_raw_controls(r.out);
  EXPECT_NE(r.out.find("\\u001B]0;title\\u0007"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\\u007F \\u009B"), std::string::npos) << r.out;
}

TEST_F(HostileStoredTextTests, DeadLettersText_IsValidUtf8WithControlsAndBadBytesAsHex) {
  const CliRun r = run_binary({"store", "dead-letters", path_});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(whizbang_test::is_valid_utf8(r.out)) << r.out;
  expect_no_raw_controls(r.out);
  EXPECT_NE(r.out.find("shop::\\xff\\xfeEvil\\x1b[31m"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ship\\xc3(ing\\x07"), std::string::npos) << r.out;
  EXPECT_NE(
      r.out.find("err \\xed\\xa0\\x80 \\x7f \\x9b \\x1b]0;title\\x07 \\xf4\\x90\\x80\\x80 end"),
      std::string::npos)
      << r.out;
}

TEST_F(HostileStoredTextTests, InspectAndStreamJson_AreValidUtf8AndValidJson) {
  const CliRun inspect = run_binary({"store", "inspect", path_, "--json"});
  ASSERT_EQ(inspect.code, 0) << inspect.err;
  parse_strictly(inspect.out);
  expect_no_raw_controls(inspect.out);

  const CliRun stream = run_binary({"store", "stream", path_, kHostileStream, "--json"});
  ASSERT_EQ(stream.code, 0) << stream.err;
  const rapidjson::Document json = parse_strictly(stream.out);
  ASSERT_TRUE(json.IsObject() && json["events"].Size() == 1u) << stream.out;
  const rapidjson::Value& event = json["events"][0];
  EXPECT_EQ(std::string(event["payload"].GetString()), "{\"x\": \"\xef\xbf\xbd\\udc00\"'");
  // A lone surrogate is no JSON a strict reader takes: the metadata is shown as its text.
  EXPECT_EQ(std::string(event["metadata"].GetString()), "{\"m\":\"\\udc00\"}");
}

TEST_F(HostileStoredTextTests, StreamText_IsValidUtf8) {
  const CliRun r = run_binary({"store", "stream", path_, kHostileStream});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(whizbang_test::is_valid_utf8(r.out)) << r.out;
  expect_no_raw_controls(r.out);
}

}  // namespace
}  // namespace whizbang::cli
