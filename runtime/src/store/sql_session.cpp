#include "whizbang/store/sql_session.hpp"

#include <charconv>
#include <cstdlib>

#include "fmt/format.h"
#include "transaction_gate.hpp"

namespace whizbang {
namespace {

// The value as text, for reads that parse it (a PostgreSQL numeric, an SQLite text column that
// holds a number).
const std::string* as_text(const SqlValue& value) { return std::get_if<std::string>(&value); }

const char* kind_of(const SqlValue& value) {
  switch (value.index()) {
    case 0:
      return "NULL";
    case 1:
      return "an integer";
    case 2:
      return "a floating-point number";
    case 3:
      return "text";
    default:
      return "bytes";
  }
}

absl::Status not_a(std::string_view wanted, std::size_t column, const SqlValue& value) {
  return absl::InvalidArgumentError(
      fmt::format("column {} holds {}, not {}", column, kind_of(value), wanted));
}

}  // namespace

absl::StatusOr<SqlSession*> SqlSession::current() {
  const std::vector<store_internal::TransactionGate*>& open =
      store_internal::TransactionGate::open_on_this_thread();
  if (open.empty()) {
    return absl::FailedPreconditionError(
        "no store transaction is open on this thread: SQL runs inside a handling (a receptor "
        "run by a worker, or a dispatch inside a whizbang::Transaction) or a Transaction");
  }
  SqlSession* session = open.back()->sql_session();
  if (session == nullptr) {
    return absl::UnimplementedError(
        "this store has no SQL (the memory store): use SQLite (\":memory:\" for tests) or "
        "PostgreSQL");
  }
  return session;
}

bool SqlRow::is_null(std::size_t column) const {
  return column < values_.size() && std::holds_alternative<std::monostate>(values_[column]);
}

absl::Status SqlRow::missing(std::size_t column) const {
  return absl::OutOfRangeError(fmt::format("no column {}: the row has {}", column, values_.size()));
}

absl::StatusOr<std::int64_t> SqlRow::int64(std::size_t column) const {
  if (column >= values_.size()) return missing(column);
  const SqlValue& value = values_[column];
  if (const auto* number = std::get_if<std::int64_t>(&value)) return *number;
  if (const std::string* text = as_text(value)) {
    std::int64_t parsed = 0;
    const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), parsed);
    if (error == std::errc() && end == text->data() + text->size()) return parsed;
  }
  return not_a("an integer", column, value);
}

absl::StatusOr<double> SqlRow::real(std::size_t column) const {
  if (column >= values_.size()) return missing(column);
  const SqlValue& value = values_[column];
  if (const auto* number = std::get_if<double>(&value)) return *number;
  if (const auto* number = std::get_if<std::int64_t>(&value)) {
    return static_cast<double>(*number);
  }
  if (const std::string* text = as_text(value); text != nullptr && !text->empty()) {
    char* end = nullptr;
    const double parsed = std::strtod(text->c_str(), &end);
    if (end == text->c_str() + text->size()) return parsed;
  }
  return not_a("a number", column, value);
}

absl::StatusOr<bool> SqlRow::boolean(std::size_t column) const {
  if (column >= values_.size()) return missing(column);
  const SqlValue& value = values_[column];
  if (const auto* number = std::get_if<std::int64_t>(&value)) return *number != 0;
  if (const std::string* text = as_text(value)) {
    if (*text == "t" || *text == "true" || *text == "1") return true;
    if (*text == "f" || *text == "false" || *text == "0") return false;
  }
  return not_a("a boolean", column, value);
}

absl::StatusOr<std::string> SqlRow::text(std::size_t column) const {
  if (column >= values_.size()) return missing(column);
  const SqlValue& value = values_[column];
  if (const std::string* text = as_text(value)) return *text;
  if (const auto* number = std::get_if<std::int64_t>(&value)) return std::to_string(*number);
  if (const auto* number = std::get_if<double>(&value)) return fmt::format("{}", *number);
  return not_a("text", column, value);
}

absl::StatusOr<SqlBlob> SqlRow::blob(std::size_t column) const {
  if (column >= values_.size()) return missing(column);
  const SqlValue& value = values_[column];
  if (const auto* bytes = std::get_if<SqlBlob>(&value)) return *bytes;
  if (const std::string* text = as_text(value)) return SqlBlob(text->begin(), text->end());
  return not_a("bytes", column, value);
}

}  // namespace whizbang
