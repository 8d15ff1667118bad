// whizbang store dead-letters | requeue: the operator's side of dead letters. A row whose handling
// failed StoreOptions::max_attempts times (or failed permanently, or could not be read) is kept
// with dead_lettered_at set and never offered again; `dead-letters` lists them (read-only, through
// SqliteStoreInspector), `requeue` gives them a fresh set of attempts (through SqliteWorkStore).
#include <algorithm>
#include <climits>
#include <memory>
#include <ostream>
#include <vector>

#include "cli/json_output.hpp"
#include "cli/store_support.hpp"
#include "cli/text_table.hpp"
#include "fmt/format.h"
#include "whizbang/store/sqlite/sqlite_store_inspector.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"

namespace whizbang::cli {
namespace {

std::string dead_letters_word(std::int64_t count) {
  return count == 1 ? "dead letter" : "dead letters";
}

void print_dead_letters_json(const Io& io, const std::vector<DeadLetter>& letters) {
  JsonOutput json;
  auto& w = json.writer();
  w.StartArray();
  for (const DeadLetter& letter : letters) {
    w.StartObject();
    json.key("source");
    json.string(to_string(letter.source));
    json.key("id");
    json.uuid(letter.id.uuid());
    json.key("message_type");
    json.string(letter.message_type);
    json.key("target");
    json.string(letter.target);
    json.key("stream_id");
    json.optional_uuid(letter.stream_id);
    json.key("attempts");
    w.Int(letter.attempts);
    json.key("reason");
    json.string(failure_reason_text(letter.reason));
    json.key("reason_code");
    w.Int(static_cast<int>(letter.reason));
    json.key("dead_lettered_at");
    json.string(format_time(letter.dead_lettered_at));
    json.key("error");
    json.optional_string(letter.error.empty() ? std::nullopt : std::optional(letter.error));
    w.EndObject();
  }
  w.EndArray();
  io.out << json.str();
}

void print_dead_letters_text(const Io& io, const SqliteStoreInspector& store,
                             const std::vector<DeadLetter>& letters, std::int64_t total) {
  if (letters.empty()) {
    io.out << "no dead letters in " << store.path();
    if (store.schema_version() < SqliteStoreInspector::kDeadLettersSchemaVersion) {
      io.out << " (schema version " << store.schema_version()
             << " predates dead letters: they came with version "
             << SqliteStoreInspector::kDeadLettersSchemaVersion << ")";
    }
    io.out << "\n";
    return;
  }
  io.out << "dead letters: " << total;
  if (static_cast<std::int64_t>(letters.size()) < total) {
    io.out << " (oldest " << letters.size() << " shown)";
  }
  io.out << "\n";
  TextTable table({"SOURCE", "ID", "TYPE", "TARGET", "STREAM", "ATTEMPTS", "REASON",
                   "DEAD-LETTERED AT", "ERROR"});
  for (const DeadLetter& letter : letters) {
    table.add({std::string(to_string(letter.source)), letter.id.to_string(),
               or_dash(letter.message_type), or_dash(letter.target), or_dash(letter.stream_id),
               std::to_string(letter.attempts), failure_reason_text(letter.reason),
               format_time(letter.dead_lettered_at), or_dash(one_line(letter.error))});
  }
  table.print(io.out, "  ");
}

// The ids `requeue` was given, each once, in the order given.
absl::StatusOr<std::vector<MessageId>> parse_ids(const std::vector<std::string>& texts) {
  std::vector<MessageId> ids;
  for (const std::string& text : texts) {
    // Any UUID: a dead letter's id is whatever id its row has (MessageId::parse would insist on
    // version 7, which an inbox row received from elsewhere need not have).
    const absl::StatusOr<Uuid> uuid = Uuid::parse(text);
    if (!uuid.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("ID '{}': {}", text, std::string(uuid.status().message())));
    }
    const MessageId id = MessageId::from_trusted(*uuid);
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  return ids;
}

// Requeues `ids` (empty: every dead letter) in one transaction. Fills `unmatched` with the ids
// that named no dead letter.
absl::StatusOr<std::size_t> requeue(WorkStore& store, const std::vector<MessageId>& ids,
                                    std::vector<MessageId>& unmatched) {
  Transaction tx(store);
  if (!tx.status().ok()) return tx.status();
  std::size_t requeued = 0;
  if (ids.empty()) {
    absl::StatusOr<std::size_t> count = store.requeue_dead_letters({});
    if (!count.ok()) return count.status();
    requeued = *count;
  }
  for (const MessageId& id : ids) {
    absl::StatusOr<std::size_t> count = store.requeue_dead_letters({&id, 1});
    if (!count.ok()) return count.status();
    if (*count == 0) unmatched.push_back(id);
    requeued += *count;
  }
  if (absl::Status committed = tx.commit(); !committed.ok()) return committed;
  return requeued;
}

}  // namespace

int store_dead_letters(const Args& args, const Io& io) {
  if (args.positional().size() != 1) return usage_error(io, "store dead-letters takes one FILE");
  int limit = -1;  // all
  if (args.has("limit")) {
    absl::StatusOr<std::int64_t> parsed = args.required_int("limit", 1);
    if (!parsed.ok()) return usage_error(io, parsed.status());
    if (*parsed > INT_MAX) return usage_error(io, fmt::format("--limit must be <= {}", INT_MAX));
    limit = static_cast<int>(*parsed);
  }
  absl::StatusOr<std::unique_ptr<SqliteStoreInspector>> store =
      SqliteStoreInspector::open(args.positional()[0]);
  if (!store.ok()) return status_error(io, store.status());
  absl::StatusOr<StoreCounts> counts = (*store)->counts();
  if (!counts.ok()) return status_error(io, counts.status());
  absl::StatusOr<std::vector<DeadLetter>> letters = (*store)->dead_letters(limit);
  if (!letters.ok()) return status_error(io, letters.status());
  if (args.has("json")) {
    print_dead_letters_json(io, *letters);
  } else {
    // The total counts every table that keeps dead letters; at least what the list holds.
    const std::int64_t total =
        std::max(counts->dead_letters(), static_cast<std::int64_t>(letters->size()));
    print_dead_letters_text(io, **store, *letters, total);
  }
  return kExitOk;
}

int store_requeue(const Args& args, const Io& io) {
  const std::vector<std::string>& positional = args.positional();
  if (positional.empty()) {
    return usage_error(io, "store requeue takes a FILE and --all or the IDs to requeue");
  }
  const bool all = args.has("all");
  const std::vector<std::string> id_texts(positional.begin() + 1, positional.end());
  if (all && !id_texts.empty()) {
    return usage_error(io, "store requeue takes --all or IDs, not both");
  }
  if (!all && id_texts.empty()) {
    return usage_error(io,
                       "store requeue needs --all or at least one ID (whizbang store dead-letters "
                       "FILE lists them)");
  }
  absl::StatusOr<std::vector<MessageId>> ids = parse_ids(id_texts);
  if (!ids.ok()) return usage_error(io, ids.status());

  // The read-only inspector vets the path first: SqliteWorkStore::open would create a missing
  // file, and would turn an empty file into a fresh store.
  const std::string& path = positional[0];
  int schema_version = 0;
  {
    absl::StatusOr<std::unique_ptr<SqliteStoreInspector>> inspector =
        SqliteStoreInspector::open(path);
    if (!inspector.ok()) return status_error(io, inspector.status());
    schema_version = (*inspector)->schema_version();
  }

  std::size_t requeued = 0;
  std::vector<MessageId> unmatched;
  if (schema_version < SqliteStoreInspector::kDeadLettersSchemaVersion) {
    // Nothing can be dead-lettered yet: no need to migrate a file an older runtime may be using.
    unmatched = *ids;
  } else {
    absl::StatusOr<std::unique_ptr<SqliteWorkStore>> store = SqliteWorkStore::open(path);
    if (!store.ok()) return status_error(io, store.status());
    absl::StatusOr<std::size_t> count = requeue(**store, *ids, unmatched);
    if (!count.ok()) return status_error(io, count.status());
    requeued = *count;
  }

  io.out << "requeued " << requeued << " "
         << dead_letters_word(static_cast<std::int64_t>(requeued));
  if (!unmatched.empty()) {
    std::string list;
    for (const MessageId& id : unmatched) list += (list.empty() ? "" : ", ") + id.to_string();
    io.out << " (no dead letter has id " << list << ")";
  } else if (schema_version < SqliteStoreInspector::kDeadLettersSchemaVersion) {
    io.out << " (schema version " << schema_version << " predates dead letters)";
  }
  io.out << "\n";
  return kExitOk;
}

}  // namespace whizbang::cli
