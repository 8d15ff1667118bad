#include "cli/store_support.hpp"

#include <cstdint>
#include <utility>

#include "fmt/format.h"

namespace whizbang::cli {

std::string status_text(MessageStatus status) {
  const auto bits = static_cast<std::uint32_t>(status);
  if (bits == 0) return "None";
  std::string text;
  const std::pair<MessageStatus, const char*> flags[] = {
      {MessageStatus::Stored, "Stored"},
      {MessageStatus::EventStored, "EventStored"},
      {MessageStatus::Published, "Published"},
      {MessageStatus::Failed, "Failed"},
  };
  std::uint32_t known = 0;
  for (const auto& [flag, name] : flags) {
    known |= static_cast<std::uint32_t>(flag);
    if (!has_status(status, flag)) continue;
    if (!text.empty()) text += "|";
    text += name;
  }
  if ((bits & ~known) != 0) text += fmt::format("{}0x{:x}", text.empty() ? "" : "|", bits & ~known);
  return text;
}

std::string failure_reason_text(FailureReason reason) {
  switch (reason) {
    case FailureReason::None:
      return "None";
    case FailureReason::TransportNotReady:
      return "TransportNotReady";
    case FailureReason::TransportException:
      return "TransportException";
    case FailureReason::SerializationError:
      return "SerializationError";
    case FailureReason::ValidationError:
      return "ValidationError";
    case FailureReason::MaxAttemptsExceeded:
      return "MaxAttemptsExceeded";
    case FailureReason::LeaseExpired:
      return "LeaseExpired";
    case FailureReason::EventStorageFailure:
      return "EventStorageFailure";
    case FailureReason::Unknown:
      return "Unknown";
  }
  return std::to_string(static_cast<int>(reason));
}

CLI::Option* add_file_argument(CLI::App& command, std::string& file) {
  return command.add_option("FILE", file, "the SQLite store")->type_name("")->required();
}

std::string or_dash(const std::string& text) { return text.empty() ? "-" : text; }
std::string or_dash(const std::optional<std::string>& text) { return text ? or_dash(*text) : "-"; }
std::string or_dash(const std::optional<Uuid>& id) { return id ? id->to_string() : "-"; }

std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace whizbang::cli
