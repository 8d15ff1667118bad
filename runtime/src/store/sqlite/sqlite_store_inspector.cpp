#include "whizbang/store/sqlite/sqlite_store_inspector.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <set>

#include "fmt/format.h"
#include "row_decoding.hpp"
#include "sqlite/migrations.hpp"
#include "sqlite/sql.hpp"
#include "sqlite/statement.hpp"
#include "store_support.hpp"

namespace whizbang {

using sqlite::Connection;
using sqlite::Use;

namespace {

// Closes a descriptor when the scope ends.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() { ::close(fd_); }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;

 private:
  int fd_;
};

// What is next to a store file: a -wal or -shm, absent, empty or not (or not known: treated as
// non-empty, the case that reads through SQLite's own locking).
enum class SideFile { Absent, Empty, NonEmpty };

SideFile side_file(const std::string& path) {
  struct stat info{};
  if (::stat(path.c_str(), &info) != 0) {
    return errno == ENOENT ? SideFile::Absent : SideFile::NonEmpty;
  }
  return info.st_size == 0 ? SideFile::Empty : SideFile::NonEmpty;
}

}  // namespace

struct SqliteStoreInspector::Impl {
  std::unique_ptr<Connection> connection;
  std::set<std::string> tables;
  int schema_version = 0;

  bool has(const std::string& table) const { return tables.count(table) > 0; }

  // The columns `table` has (a file older than a column's migration lacks it).
  absl::StatusOr<std::set<std::string>> column_names(const std::string& table) {
    std::set<std::string> names;
    absl::StatusOr<sqlite3_stmt*> stmt = connection->prepare(sqlite::sql::kTableColumns);
    if (!stmt.ok()) return stmt.status();
    Use use(*connection, *stmt);
    use.bind_text(1, std::string_view(table));
    while (true) {
      absl::StatusOr<bool> row = use.step();
      if (!row.ok()) return row.status();
      if (!*row) break;
      names.insert(use.text(0));
    }
    return names;
  }

  // The `limit` newest rows of a listing's table, decoded; a column the table lacks reads NULL.
  template <class Row, class Decode>
  absl::StatusOr<std::vector<Row>> recent(const sqlite::sql::RecentListing& listing, int limit,
                                          Decode decode) {
    const std::string table(listing.table);
    if (!has(table)) return std::vector<Row>();
    absl::StatusOr<std::set<std::string>> names = column_names(table);
    if (!names.ok()) return names.status();
    const std::string sql = sqlite::sql::recent_rows(
        listing, [&](std::string_view column) { return names->count(std::string(column)) > 0; });
    return rows<Row>(table, sql, limit, decode);
  }

  bool has_dead_letters() const {
    return schema_version >= SqliteStoreInspector::kDeadLettersSchemaVersion;
  }

  // The rows of `table` (those matching `where`, when given).
  absl::StatusOr<std::int64_t> count(const std::string& table, const std::string& where = "") {
    if (!has(table)) return 0;
    absl::StatusOr<sqlite3_stmt*> stmt = connection->prepare(
        "SELECT count(*) FROM " + table + (where.empty() ? "" : " WHERE " + where));
    if (!stmt.ok()) return stmt.status();
    Use use(*connection, *stmt);
    absl::StatusOr<bool> row = use.step();
    if (!row.ok()) return row.status();
    return *row ? use.int64(0) : 0;
  }

  // Runs `sql` (with ?1 = limit, when it has a parameter; SQLite reads a negative limit as none)
  // over `table` and decodes each row.
  template <class Row, class Decode>
  absl::StatusOr<std::vector<Row>> rows(const std::string& table, const std::string& sql, int limit,
                                        Decode decode) {
    if (!has(table)) return std::vector<Row>();
    absl::StatusOr<sqlite3_stmt*> stmt = connection->prepare(sql);
    if (!stmt.ok()) return stmt.status();
    Use use(*connection, *stmt);
    if (sqlite3_bind_parameter_count(*stmt) > 0) use.bind_int(1, static_cast<std::int64_t>(limit));
    return store_internal::collect_rows<Row>(use, decode);
  }
};

absl::StatusOr<std::unique_ptr<SqliteStoreInspector>> SqliteStoreInspector::open(
    const std::string& path) {
  // The file is opened here first and the checks look at what was opened, never at the path
  // again: a path checked and then opened could be swapped in between (for a FIFO that blocks
  // the reader forever, or for another file). O_NONBLOCK: opening a FIFO must not block.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    if (error == ENOENT) return absl::NotFoundError(fmt::format("'{}': no such file", path));
    return absl::InvalidArgumentError(fmt::format("'{}': {}", path, std::strerror(error)));
  }
  const FileDescriptor file(fd);
  struct stat opened{};
  if (::fstat(fd, &opened) != 0) {
    return absl::InvalidArgumentError(fmt::format("'{}': {}", path, std::strerror(errno)));
  }
  if (S_ISDIR(opened.st_mode)) {
    return absl::InvalidArgumentError(fmt::format("'{}' is a directory, not a store file", path));
  }
  if (!S_ISREG(opened.st_mode)) {
    return absl::InvalidArgumentError(fmt::format("'{}' is not a regular file", path));
  }

  // SQLite's read-only connection to a WAL file creates -wal and -shm whenever it can, and a
  // read-only command must create no file. When there is no -wal, or an empty one and no -shm,
  // no writer is live (a live one has both) and the main file holds every commit (a closed store
  // checkpoints and removes its WAL; an empty one holds nothing): read it immutable, through
  // this very descriptor, so no side file appears. Otherwise share the writer's locks and -shm,
  // which SQLite finds by the path, so the path is opened and then proved to be the file
  // checked above. (A non-empty -wal without a -shm, a killed writer's WAL whose -shm was
  // removed, holds commits only the WAL has: reading them needs the -shm SQLite then creates.)
  const SideFile wal = side_file(path + "-wal");
  const SideFile shm = side_file(path + "-shm");
  const bool live =
      wal != SideFile::Absent && (wal == SideFile::NonEmpty || shm != SideFile::Absent);
  const std::string descriptor_path = "/proc/self/fd/" + std::to_string(fd);
  const bool through_descriptor = !live && ::access(descriptor_path.c_str(), R_OK) == 0;
  absl::StatusOr<std::unique_ptr<Connection>> connection = Connection::open_read_only(
      through_descriptor ? descriptor_path : path, /*immutable=*/!live, path);
  if (!connection.ok()) return connection.status();
  if (!through_descriptor) {
    struct stat now{};
    if (::stat(path.c_str(), &now) != 0 || now.st_dev != opened.st_dev ||
        now.st_ino != opened.st_ino) {
      return absl::UnavailableError(
          fmt::format("'{}' was replaced while it was being opened; try again", path));
    }
  }
  auto impl = std::make_unique<Impl>();
  impl->connection = *std::move(connection);

  // The first read tells a non-SQLite file apart (SQLITE_NOTADB).
  {
    absl::StatusOr<sqlite3_stmt*> stmt = impl->connection->prepare(sqlite::sql::kTables);
    if (!stmt.ok()) {
      return absl::DataLossError(fmt::format("'{}' is not an SQLite database", path));
    }
    Use use(*impl->connection, *stmt);
    while (true) {
      absl::StatusOr<bool> row = use.step();
      if (!row.ok()) {
        return absl::DataLossError(fmt::format("'{}' is not an SQLite database", path));
      }
      if (!*row) break;
      impl->tables.insert(use.text(0));
    }
  }
  if (!impl->has("wh_schema_version") || !impl->has("wh_outbox")) {
    return absl::FailedPreconditionError(
        fmt::format("'{}' is an SQLite database but not a Whizbang store (it has {} tables and no "
                    "{})",
                    path, impl->tables.size(),
                    impl->has("wh_schema_version") ? "wh_outbox" : "wh_schema_version"));
  }
  {
    absl::StatusOr<sqlite3_stmt*> stmt =
        impl->connection->prepare("SELECT COALESCE(MAX(version), 0) FROM wh_schema_version");
    if (!stmt.ok()) return stmt.status();
    Use use(*impl->connection, *stmt);
    absl::StatusOr<bool> row = use.step();
    if (!row.ok()) return row.status();
    impl->schema_version = *row ? static_cast<int>(use.int64(0)) : 0;
  }
  return std::unique_ptr<SqliteStoreInspector>(new SqliteStoreInspector(std::move(impl)));
}

SqliteStoreInspector::SqliteStoreInspector(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SqliteStoreInspector::~SqliteStoreInspector() = default;

const std::string& SqliteStoreInspector::path() const { return impl_->connection->path(); }
int SqliteStoreInspector::schema_version() const { return impl_->schema_version; }
int SqliteStoreInspector::known_schema_version() const { return sqlite::latest_schema_version(); }

absl::StatusOr<StoreCounts> SqliteStoreInspector::counts() {
  StoreCounts counts;
  const std::pair<const char*, std::int64_t*> tables[] = {
      {"wh_outbox", &counts.outbox},
      {"wh_outbox_tombstones", &counts.outbox_tombstones},
      {"wh_inbox", &counts.inbox},
      {"wh_event_store", &counts.event_store},
      {"wh_perspective_events", &counts.perspective_events},
      {"wh_receptor_invocations", &counts.receptor_invocations},
  };
  for (const auto& [table, count] : tables) {
    absl::StatusOr<std::int64_t> value = impl_->count(table);
    if (!value.ok()) return value.status();
    *count = *value;
  }
  if (!impl_->has_dead_letters()) return counts;
  // Every table with a dead_lettered_at column, so tables a later migration adds are counted too.
  absl::StatusOr<std::vector<std::string>> keeping = impl_->rows<std::string>(
      "wh_outbox", sqlite::sql::kDeadLetterTables, -1, [](const Use& use) { return use.text(0); });
  if (!keeping.ok()) return keeping.status();
  for (const std::string& table : *keeping) {
    absl::StatusOr<std::int64_t> value = impl_->count(table, "dead_lettered_at IS NOT NULL");
    if (!value.ok()) return value.status();
    counts.dead_lettered[table] = *value;
  }
  return counts;
}

absl::StatusOr<std::vector<OutboxRow>> SqliteStoreInspector::recent_outbox(int limit) {
  return impl_->recent<OutboxRow>(sqlite::sql::kRecentOutbox, limit,
                                  store_internal::decode_outbox_row<sqlite::Use>);
}

absl::StatusOr<std::vector<InboxRow>> SqliteStoreInspector::recent_inbox(int limit) {
  return impl_->recent<InboxRow>(sqlite::sql::kRecentInbox, limit,
                                 store_internal::decode_inbox_row<sqlite::Use>);
}

absl::StatusOr<std::vector<StoredEvent>> SqliteStoreInspector::recent_events(int limit) {
  return impl_->recent<StoredEvent>(sqlite::sql::kRecentEvents, limit,
                                    store_internal::decode_event_row<sqlite::Use>);
}

absl::StatusOr<std::vector<PerspectiveEventRow>> SqliteStoreInspector::recent_perspective_events(
    int limit) {
  return impl_->recent<PerspectiveEventRow>(
      sqlite::sql::kRecentPerspectiveEvents, limit,
      store_internal::decode_perspective_event_row<sqlite::Use>);
}

absl::StatusOr<std::vector<StoredReceptorInvocation>>
SqliteStoreInspector::recent_receptor_invocations(int limit) {
  return impl_->recent<StoredReceptorInvocation>(
      sqlite::sql::kRecentInvocations, limit,
      store_internal::decode_receptor_invocation_row<sqlite::Use>);
}

absl::StatusOr<std::vector<StoredEvent>> SqliteStoreInspector::read_stream(const Uuid& stream_id) {
  if (!impl_->has("wh_event_store")) return std::vector<StoredEvent>();
  absl::StatusOr<sqlite3_stmt*> stmt = impl_->connection->prepare(sqlite::sql::kReadStream);
  if (!stmt.ok()) return stmt.status();
  Use use(*impl_->connection, *stmt);
  use.bind_uuid(1, stream_id);
  return store_internal::collect_rows<StoredEvent>(use,
                                                   store_internal::decode_event_row<sqlite::Use>);
}

absl::StatusOr<std::vector<DeadLetter>> SqliteStoreInspector::dead_letters(int limit) {
  if (!impl_->has_dead_letters()) return std::vector<DeadLetter>();
  absl::StatusOr<std::vector<DeadLetter>> letters =
      impl_->rows<DeadLetter>("wh_outbox", sqlite::sql::kDeadLetters, limit,
                              store_internal::decode_dead_letter<sqlite::Use>);
  // kDeadLetters reads the current schema: a store between version 5 and it may lack a table.
  if (!letters.ok() && impl_->schema_version < sqlite::latest_schema_version()) {
    return absl::FailedPreconditionError(
        fmt::format("'{}' has schema version {}, older than this runtime's {}: its dead letters "
                    "can be listed once a store opens (and migrates) it ({})",
                    path(), impl_->schema_version, sqlite::latest_schema_version(),
                    std::string(letters.status().message())));
  }
  return letters;
}

}  // namespace whizbang
