// The PostgreSQL backend's binary arrays (binary_array.hpp): what the server reads back from
// each element type, NULLs and text that a text-form array would have to escape included.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "postgres_connection.hpp"
#include "store/postgres/binary_array.hpp"
#include "whizbang/ids/message_id.hpp"

namespace store_test {
namespace {

using whizbang::Uuid;
using whizbang::postgres::BinaryArray;
using whizbang::postgres::Connection;
using whizbang::postgres::ElementType;
using whizbang::postgres::Query;

// Each element of the array the server received, as its text form (nullopt for NULL), in order.
std::vector<std::optional<std::string>> elements(Connection& connection, const std::string& sql,
                                                 BinaryArray array) {
  Query query(connection, sql);
  query.bind_array(1, std::move(array));
  std::vector<std::optional<std::string>> read;
  while (true) {
    absl::StatusOr<bool> row = query.step();
    EXPECT_TRUE(row.ok()) << row.status();
    if (!row.ok() || !*row) break;
    read.push_back(query.optional_text(0));
  }
  return read;
}

TEST(PostgresBinaryArrayTests, TextElements_ArriveByteForByteWithTheirNulls) {
  auto connection = connect_to_fresh_schema();
  ASSERT_NE(connection, nullptr);
  const std::vector<std::optional<std::string>> texts = {R"({"quote":"\"","backslash":"\\"})",
                                                         std::nullopt,
                                                         "",
                                                         "{a,b}",
                                                         "NULL",
                                                         "caf\u00e9 \u2713",
                                                         std::string(5000, 'x')};
  BinaryArray array(ElementType::Text);
  for (const auto& text : texts) array.add(text);
  EXPECT_EQ(elements(*connection, "SELECT unnest($1::text[])", std::move(array)), texts);
}

TEST(PostgresBinaryArrayTests, UuidBoolAndBigintElements_ArriveAsTheirValues) {
  auto connection = connect_to_fresh_schema();
  ASSERT_NE(connection, nullptr);
  const Uuid id = whizbang::MessageId::mint().uuid();
  BinaryArray ids(ElementType::Uuid);
  ids.add(id);
  ids.add(std::optional<Uuid>());
  EXPECT_EQ(elements(*connection, "SELECT unnest($1::uuid[])::text", std::move(ids)),
            (std::vector<std::optional<std::string>>{id.to_string(), std::nullopt}));

  BinaryArray flags(ElementType::Bool);
  flags.add(true);
  flags.add(false);
  EXPECT_EQ(elements(*connection, "SELECT unnest($1::boolean[])::text", std::move(flags)),
            (std::vector<std::optional<std::string>>{"true", "false"}));

  BinaryArray numbers(ElementType::Int8);
  numbers.add(std::int64_t{1718000000000000});
  numbers.add(std::int64_t{-2});
  numbers.add(std::optional<std::int64_t>());
  EXPECT_EQ(elements(*connection, "SELECT unnest($1::bigint[])::text", std::move(numbers)),
            (std::vector<std::optional<std::string>>{"1718000000000000", "-2", std::nullopt}));
}

TEST(PostgresBinaryArrayTests, EmptyArray_HasNoElements) {
  auto connection = connect_to_fresh_schema();
  ASSERT_NE(connection, nullptr);
  Query query(*connection, "SELECT cardinality($1::text[])");
  query.bind_array(1, BinaryArray(ElementType::Text));
  ASSERT_TRUE(*query.step());
  EXPECT_EQ(query.int64(0), 0);
}

// Text the server's encoding rejects is an error of the statement, not a crash or a silent cut.
TEST(PostgresBinaryArrayTests, InvalidUtf8_FailsTheStatementWithItsReason) {
  auto connection = connect_to_fresh_schema();
  ASSERT_NE(connection, nullptr);
  BinaryArray array(ElementType::Text);
  array.add(std::string_view("ok"));
  array.add(std::string_view("bad \xff byte"));
  Query query(*connection, "SELECT unnest($1::text[])");
  query.bind_array(1, std::move(array));
  const absl::StatusOr<bool> row = query.step();
  ASSERT_FALSE(row.ok());
  EXPECT_NE(std::string(row.status().message()).find("UTF8"), std::string::npos) << row.status();
  Query next(*connection, "SELECT 1");  // the connection stays usable
  EXPECT_TRUE(next.step().ok());
}

}  // namespace
}  // namespace store_test
