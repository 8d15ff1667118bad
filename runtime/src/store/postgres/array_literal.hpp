// ArrayLiteral: a PostgreSQL array in its text form ({"a","b",NULL}), so a batch of rows travels
// as one parameter per column of one statement (unnest) instead of one statement per row.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "whizbang/ids/uuid.hpp"

namespace whizbang::postgres {

class ArrayLiteral {
 public:
  ArrayLiteral() : text_("{") {}

  // Every element is quoted, with `"` and `\` escaped, so any text (JSON included) survives.
  void add(std::string_view element) {
    separate();
    text_ += '"';
    for (const char c : element) {
      if (c == '"' || c == '\\') text_ += '\\';
      text_ += c;
    }
    text_ += '"';
  }
  void add(const std::optional<std::string>& element) {
    if (element) {
      add(std::string_view(*element));
    } else {
      add_null();
    }
  }
  void add(const Uuid& id) { add(std::string_view(id.to_string())); }
  void add(const std::optional<Uuid>& id) {
    if (id) {
      add(*id);
    } else {
      add_null();
    }
  }
  void add(bool value) { add(std::string_view(value ? "t" : "f")); }
  void add(const std::optional<std::int64_t>& value) {
    if (value) {
      add(std::string_view(std::to_string(*value)));
    } else {
      add_null();
    }
  }
  void add_null() {
    separate();
    text_ += "NULL";
  }

  // The literal, closed.
  std::string finish() const { return text_ + "}"; }

 private:
  void separate() {
    if (text_.size() > 1) text_ += ',';
  }

  std::string text_;
};

}  // namespace whizbang::postgres
