// parse_store_location (open_work_store.hpp): which backend a store location names. The rule is
// told in docs/guide/06-stores-and-workers.md ("Store locations"): the explicit forms first, then
// an existing file, then libpq's key=value conninfo; anything else is a SQLite path. A path may
// hold '=' ("/srv/a=b/orders.db", "orders=1.db"): only pairs of libpq's own keywords make a
// conninfo.
#include <libpq-fe.h>

#include <cctype>
#include <filesystem>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <system_error>

#include "whizbang/store/open_work_store.hpp"

namespace whizbang {
namespace {

bool location_starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// The connection keywords of the linked libpq ("host", "dbname", "sslmode", ...): parsing an empty
// conninfo lists every option it knows.
const std::set<std::string, std::less<>>& libpq_keywords() {
  static const std::set<std::string, std::less<>> keywords = [] {
    std::set<std::string, std::less<>> known;
    std::unique_ptr<PQconninfoOption, void (*)(PQconninfoOption*)> options(
        PQconninfoParse("", nullptr), &PQconninfoFree);
    for (const PQconninfoOption* option = options.get();
         option != nullptr && option->keyword != nullptr; ++option) {
      known.insert(option->keyword);
    }
    return known;
  }();
  return keywords;
}

bool is_conninfo_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
bool is_conninfo_keyword_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// Whether `text` reads as libpq's key=value form: one or more `keyword = value`, separated by
// spaces, where a keyword is a word ([A-Za-z0-9_]+) and a value runs to the next unescaped space
// or is single-quoted ('...' with \' and \\), as libpq parses them; and at least one keyword is
// libpq's own (a misspelt one beside it is still meant for libpq, which then names it).
bool is_key_value_conninfo(std::string_view text) {
  std::size_t at = 0;
  bool any_pair = false;
  bool known_keyword = false;
  const auto skip_spaces = [&] {
    while (at < text.size() && is_conninfo_space(text[at])) ++at;
  };
  skip_spaces();
  while (at < text.size()) {
    const std::size_t start = at;
    while (at < text.size() && is_conninfo_keyword_char(text[at])) ++at;
    if (at == start) return false;
    const std::string_view keyword = text.substr(start, at - start);
    skip_spaces();
    if (at >= text.size() || text[at] != '=') return false;
    ++at;
    skip_spaces();
    if (at < text.size() && text[at] == '\'') {
      for (++at; at < text.size() && text[at] != '\''; ++at) {
        if (text[at] == '\\') ++at;
      }
      if (at >= text.size()) return false;  // unterminated quote
      ++at;
    } else {
      for (; at < text.size() && !is_conninfo_space(text[at]); ++at) {
        if (text[at] == '\\') ++at;
      }
    }
    any_pair = true;
    known_keyword = known_keyword || libpq_keywords().contains(keyword);
    skip_spaces();
  }
  return any_pair && known_keyword;
}

}  // namespace

StoreLocation parse_store_location(std::string_view location) {
  if (location == "memory:") return {StoreBackend::Memory, ""};
  if (location_starts_with(location, "sqlite:")) {
    return {StoreBackend::Sqlite, std::string(location.substr(7))};
  }
  if (location == "postgresql:" || location == "postgres:") return {StoreBackend::Postgres, ""};
  if (location_starts_with(location, "postgresql://") ||
      location_starts_with(location, "postgres://")) {
    return {StoreBackend::Postgres, std::string(location)};
  }
  // A file that exists is that file, whatever its name looks like.
  std::error_code error;
  if (!location.empty() && std::filesystem::exists(std::filesystem::path(location), error)) {
    return {StoreBackend::Sqlite, std::string(location)};
  }
  if (is_key_value_conninfo(location)) return {StoreBackend::Postgres, std::string(location)};
  return {StoreBackend::Sqlite, std::string(location)};
}

}  // namespace whizbang
