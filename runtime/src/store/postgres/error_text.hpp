// libpq's error messages on one line. libpq ends its messages with a newline and breaks them
// over several lines: "Connection refused" and then "\tIs the server running on that host and
// accepting TCP/IP connections?", one such pair per address tried, a statement's "DETAIL:" and
// "HINT:" lines, "LINE 1: ..." with a caret under the error's position. A Status message (and so a
// log line, or the `whizbang` tool's one line on stderr, README) is one line: the lines are
// joined with "; ", the SQLSTATE is kept by the caller (Connection::error).
//
//   postgres::one_line("could not connect: Connection refused\n\tIs the server running...?\n")
//     // "could not connect: Connection refused; Is the server running...?"
#pragma once

#include <libpq-fe.h>
#include <string>
#include <string_view>

namespace whizbang::postgres {

// `message`'s lines, each trimmed of spaces and tabs, the empty ones dropped, joined with "; ".
std::string one_line(std::string_view message);

// A failed result's error from its fields: "ERROR: <primary>; DETAIL: <detail>; HINT: <hint>"
// (no position or statement lines: the caller names the statement). Falls back to one_line() of
// the whole message when the result has no primary message field.
std::string result_error_text(const PGresult* result);

}  // namespace whizbang::postgres
