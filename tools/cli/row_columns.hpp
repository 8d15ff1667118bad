// Column specs for the rows `whizbang store` prints: one list per row type of {table header, JSON
// key, cell}, read by both the text table and the --json objects, so the two outputs list the
// same fields and cannot drift apart.
//
//   constexpr Column<StoredEvent> kColumns[] = {
//       {"VERSION", "version", [](const StoredEvent& e) { return Cell::number(e.version); }},
//       {"", "metadata", [](const StoredEvent& e) { return Cell::payload(e.metadata); }},
//   };                                           // ^ no header: in --json only
//   table_of(kColumns, events).print(io.out, "  ");
//   write_objects(json, kColumns, events);
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "cli/json_output.hpp"
#include "cli/text_table.hpp"
#include "whizbang/ids/uuid.hpp"
#include "whizbang/message/envelope.hpp"

namespace whizbang::cli {

// One field of one row: the table's text and the JSON value.
struct Cell {
  // A payload: written as the JSON document it holds, or as a string when it holds no JSON.
  struct Payload {
    std::string text;
  };
  using Json = std::variant<std::nullptr_t, std::string, std::int64_t, bool, Payload>;

  std::string text;
  Json json;

  // The same text in both.
  static Cell string(std::string text);
  // "-" in the table for an empty string (a column that is often blank); the string in JSON.
  static Cell dashed(std::string text);
  // "-" in the table, null in JSON when absent.
  static Cell optional(const std::optional<std::string>& text);
  static Cell id(const Uuid& id);
  static Cell optional_id(const std::optional<Uuid>& id);
  static Cell number(std::int64_t number);
  static Cell flag(bool value);
  static Cell time(TimePoint time);
  // A last error: on one line ("-" when none) in the table, null when none in JSON.
  static Cell error(const std::string& error);
  // The payload's text in the table, the document itself in JSON.
  static Cell payload(std::string json_text);
};

template <class Row>
struct Column {
  std::string_view header;  // empty: in --json only
  std::string_view key;     // empty: in the table only
  Cell (*cell)(const Row&);
};

void write_json(JsonOutput& json, const Cell::Json& value);

// The table of `rows`: the columns with a header, in their order.
template <class Row>
TextTable table_of(std::span<const Column<std::type_identity_t<Row>>> columns,
                   const std::vector<Row>& rows) {
  std::vector<std::string> header;
  for (const Column<Row>& column : columns) {
    if (!column.header.empty()) header.emplace_back(column.header);
  }
  TextTable table(std::move(header));
  for (const Row& row : rows) {
    std::vector<std::string> cells;
    for (const Column<Row>& column : columns) {
      if (!column.header.empty()) cells.push_back(column.cell(row).text);
    }
    table.add(std::move(cells));
  }
  return table;
}

// One JSON object of the columns with a key, in their order.
template <class Row>
void write_object(JsonOutput& json, std::span<const Column<std::type_identity_t<Row>>> columns,
                  const Row& row) {
  json.writer().StartObject();
  for (const Column<Row>& column : columns) {
    if (column.key.empty()) continue;
    json.key(column.key);
    write_json(json, column.cell(row).json);
  }
  json.writer().EndObject();
}

// A JSON array of one object per row.
template <class Row>
void write_objects(JsonOutput& json, std::span<const Column<std::type_identity_t<Row>>> columns,
                   const std::vector<Row>& rows) {
  json.writer().StartArray();
  for (const Row& row : rows) write_object(json, columns, row);
  json.writer().EndArray();
}

}  // namespace whizbang::cli
