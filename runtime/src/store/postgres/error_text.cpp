#include "postgres/error_text.hpp"

namespace whizbang::postgres {

std::string one_line(std::string_view message) {
  std::string joined;
  while (!message.empty()) {
    const std::size_t end = message.find_first_of("\r\n");
    std::string_view line = message.substr(0, end);
    message = end == std::string_view::npos ? std::string_view() : message.substr(end + 1);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    if (line.empty()) continue;
    if (!joined.empty()) joined += "; ";
    joined.append(line);
  }
  return joined;
}

std::string result_error_text(const PGresult* result) {
  const char* primary = PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
  if (primary == nullptr) return one_line(PQresultErrorMessage(result));
  std::string text;
  if (const char* severity = PQresultErrorField(result, PG_DIAG_SEVERITY)) {
    text += one_line(severity) + ": ";
  }
  text += one_line(primary);
  if (const char* detail = PQresultErrorField(result, PG_DIAG_MESSAGE_DETAIL)) {
    text += "; DETAIL: " + one_line(detail);
  }
  if (const char* hint = PQresultErrorField(result, PG_DIAG_MESSAGE_HINT)) {
    text += "; HINT: " + one_line(hint);
  }
  return text;
}

}  // namespace whizbang::postgres
