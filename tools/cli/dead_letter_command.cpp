// whizbang store dead-letters | requeue: the operator's side of dead letters. A row whose handling
// failed StoreOptions::max_attempts times (or failed permanently, or could not be read) is kept
// with dead_lettered_at set and never offered again; `dead-letters` lists them (read-only, through
// StoreInspector), `requeue` gives them a fresh set of attempts (through the store itself).
#include <algorithm>
#include <climits>
#include <memory>
#include <ostream>
#include <vector>

#include "cli/json_output.hpp"
#include "cli/store_columns.hpp"
#include "cli/store_support.hpp"
#include "fmt/format.h"
#include "whizbang/store/sqlite/sqlite_store_inspector.hpp"

namespace whizbang::cli {
namespace {

struct DeadLettersOptions {
  StoreArgument store;
  std::int64_t limit = 0;  // all (the option takes N >= 1)
  bool json = false;
};

struct RequeueOptions {
  StoreArgument store;
  std::vector<std::string> ids;
  bool all = false;
};

std::string dead_letters_word(std::int64_t count) {
  return count == 1 ? "dead letter" : "dead letters";
}

void print_dead_letters_json(const Io& io, const std::vector<DeadLetter>& letters) {
  JsonOutput json;
  write_objects(json, dead_letter_columns(), letters);
  io.out << json.str();
}

void print_dead_letters_text(const Io& io, const StoreInspector& store,
                             const std::vector<DeadLetter>& letters, std::int64_t total) {
  if (letters.empty()) {
    io.out << "no dead letters in " << store.location();
    if (!store.keeps_dead_letters()) {
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
  table_of(dead_letter_columns(), letters).print(io.out, "  ");
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

int store_dead_letters(const DeadLettersOptions& options, const Io& io) {
  const int limit = options.limit == 0 ? -1 : static_cast<int>(options.limit);  // -1: all
  absl::StatusOr<std::unique_ptr<StoreInspector>> store = open_for_reading(options.store, io);
  if (!store.ok()) return status_error(io, store.status());
  absl::StatusOr<StoreCounts> counts = (*store)->counts();
  if (!counts.ok()) return status_error(io, counts.status());
  absl::StatusOr<std::vector<DeadLetter>> letters = (*store)->dead_letters(limit);
  if (!letters.ok()) return status_error(io, letters.status());
  if (options.json) {
    print_dead_letters_json(io, *letters);
  } else {
    // The total counts every table that keeps dead letters; at least what the list holds.
    const std::int64_t total =
        std::max(counts->dead_letters(), static_cast<std::int64_t>(letters->size()));
    print_dead_letters_text(io, **store, *letters, total);
  }
  return kExitOk;
}

int store_requeue(const RequeueOptions& options, const Io& io) {
  const bool all = options.all;
  const std::vector<std::string>& id_texts = options.ids;
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

  // The read-only inspector vets the store first: opening a work store would create a missing
  // file (or tables in a schema that holds no store), and would turn it into a fresh store.
  int schema_version = 0;
  bool keeps_dead_letters = false;
  {
    absl::StatusOr<std::unique_ptr<StoreInspector>> inspector = open_inspector(options.store);
    if (!inspector.ok()) return status_error(io, inspector.status());
    schema_version = (*inspector)->schema_version();
    keeps_dead_letters = (*inspector)->keeps_dead_letters();
  }

  std::size_t requeued = 0;
  std::vector<MessageId> unmatched;
  if (!keeps_dead_letters) {
    // Nothing can be dead-lettered yet: no need to migrate a file an older runtime may be using.
    unmatched = *ids;
  } else {
    absl::StatusOr<std::unique_ptr<WorkStore>> store = open_writable(options.store);
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
  } else if (!keeps_dead_letters) {
    io.out << " (schema version " << schema_version << " predates dead letters)";
  }
  io.out << "\n";
  return kExitOk;
}

}  // namespace

void add_dead_letter_commands(CommandTree& tree, CLI::App& store) {
  auto list = std::make_shared<DeadLettersOptions>();
  CLI::App* dead_letters = tree.add_command(
      store, "dead-letters", "every dead letter, oldest first, with its reason and last error",
      [list](const Io& io) { return store_dead_letters(*list, io); });
  add_store_argument(*dead_letters, list->store);
  dead_letters->add_option("--limit", list->limit, "show the N oldest")
      ->type_name("N")
      ->check(whole_number(1, INT_MAX));
  dead_letters->add_flag("--json", list->json, "print a JSON array");
  dead_letters->footer(fmt::format(
      "Lists the dead letters of the outbox, inbox, perspective events, lifecycle\n"
      "completions and detached work: source, id, type, target, stream, attempts, reason,\n"
      "dead-lettered at and the last error.\n{}",
      kReadOnlyNote));

  auto requeue_options = std::make_shared<RequeueOptions>();
  CLI::App* requeue_command = tree.add_command(
      store, "requeue", "give dead letters a fresh set of attempts, due now",
      [requeue_options](const Io& io) { return store_requeue(*requeue_options, io); });
  add_store_argument(*requeue_command, requeue_options->store);
  requeue_command
      ->add_option("ID", requeue_options->ids,
                   "dead letters to requeue (the ID column of dead-letters)")
      ->type_name("");
  requeue_command->add_flag("--all", requeue_options->all, "requeue every dead letter");
  requeue_command->footer(
      "Requeues every dead letter (--all) or those with these ids, and prints how many it\n"
      "requeued. Writes, next to running services as safely as one of them: opens FILE as a\n"
      "service does, which migrates an older schema (a store older than dead letters has none and\n"
      "is left as it is).");
}

}  // namespace whizbang::cli
