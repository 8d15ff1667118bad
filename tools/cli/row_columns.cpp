#include "cli/row_columns.hpp"

#include "cli/cli.hpp"
#include "cli/store_support.hpp"

namespace whizbang::cli {

Cell Cell::string(std::string text) { return {text, std::move(text)}; }

Cell Cell::dashed(std::string text) { return {or_dash(text), std::move(text)}; }

Cell Cell::optional(const std::optional<std::string>& text) {
  return {or_dash(text), text ? Json(*text) : Json(nullptr)};
}

Cell Cell::id(const Uuid& id) { return string(id.to_string()); }

Cell Cell::optional_id(const std::optional<Uuid>& id) {
  return id ? Cell::id(*id) : Cell{"-", nullptr};
}

Cell Cell::number(std::int64_t number) { return {std::to_string(number), number}; }

Cell Cell::flag(bool value) { return {value ? "true" : "false", value}; }

Cell Cell::time(TimePoint time) { return string(format_time(time)); }

Cell Cell::error(const std::string& error) {
  return {or_dash(one_line(error)), error.empty() ? Json(nullptr) : Json(error)};
}

Cell Cell::payload(std::string json_text) { return {json_text, Payload{std::move(json_text)}}; }

void write_json(JsonOutput& json, const Cell::Json& value) {
  struct Writer {
    JsonOutput& json;
    void operator()(std::nullptr_t) const { json.writer().Null(); }
    void operator()(const std::string& text) const { json.string(text); }
    void operator()(std::int64_t number) const { json.writer().Int64(number); }
    void operator()(bool flag) const { json.writer().Bool(flag); }
    void operator()(const Cell::Payload& payload) const { json.json_or_string(payload.text); }
  };
  std::visit(Writer{json}, value);
}

}  // namespace whizbang::cli
