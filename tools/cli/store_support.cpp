#include "cli/store_support.hpp"

#include <cstdint>
#include <ostream>
#include <utility>

#include "fmt/format.h"
#include "whizbang/store/open_work_store.hpp"
#include "whizbang/store/postgres/postgres_store_inspector.hpp"
#include "whizbang/store/postgres/postgres_work_store.hpp"

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

void add_store_argument(CLI::App& command, StoreArgument& store) {
  command
      .add_option("FILE", store.file,
                  "the store: a SQLite file (or sqlite:PATH), a postgresql:// URI, or a libpq "
                  "key=value conninfo (host=... dbname=...)")
      ->type_name("")
      ->required();
  command.add_flag("--pg", store.pg,
                   "FILE is a PostgreSQL conninfo (\"postgresql:\": WHIZBANG_PG_CONNINFO)");
}

namespace {

// --pg's FILE as PostgresWorkStore::open takes it ("postgresql:" alone: the environment's).
std::string conninfo(const StoreArgument& store) {
  return store.file == "postgresql:" ? std::string() : store.file;
}

}  // namespace

absl::StatusOr<std::unique_ptr<StoreInspector>> open_inspector(const StoreArgument& store) {
  if (!store.pg) return open_store_inspector(store.file);
  auto inspector = PostgresStoreInspector::open(conninfo(store));
  if (!inspector.ok()) return inspector.status();
  return std::unique_ptr<StoreInspector>(*std::move(inspector));
}

absl::StatusOr<std::unique_ptr<StoreInspector>> open_for_reading(const StoreArgument& store,
                                                                 const Io& io) {
  absl::StatusOr<std::unique_ptr<StoreInspector>> inspector = open_inspector(store);
  if (inspector.ok() && (*inspector)->schema_is_newer()) {
    io.err << fmt::format(
        "whizbang: warning: store schema version {} is newer than this tool knows ({}); output "
        "may be incomplete\n",
        (*inspector)->schema_version(), (*inspector)->known_schema_version());
  }
  return inspector;
}

absl::StatusOr<std::unique_ptr<WorkStore>> open_writable(const StoreArgument& store) {
  if (!store.pg) return open_work_store(store.file);
  auto opened = PostgresWorkStore::open(conninfo(store));
  if (!opened.ok()) return opened.status();
  return std::unique_ptr<WorkStore>(*std::move(opened));
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
