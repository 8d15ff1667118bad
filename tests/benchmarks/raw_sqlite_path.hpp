// The hand-written sqlite3 baseline of the durable end-to-end benchmark (issue #16): the row
// operations the library runs to move a message producer -> consumer between two SQLite files —
// outbox insert, claim (appending the event to the event store: the benchmark's message is an
// event, and an event is stored on both sides), mark published, inbox insert with dedup, claim
// (and append), record the receptor invocation, complete — with prepared sqlite3 statements, in the
// same batch sizes, transactions and durability. The library creates both files (its migrations),
// so the baseline writes the same tables and maintains the same indexes.
//
//   bench::RawSqlitePath raw(dir, bench::RawDurability::Full);
//   if (!raw.move(10000, /*publish_batch=*/1)) ...   // the error is on stderr
#pragma once

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <whizbang/ids/message_id.hpp>
#include <whizbang/stage.hpp>
#include <whizbang/store/sqlite/sqlite_work_store.hpp>

namespace bench {

enum class RawDurability { Full, Normal };

class RawSqlitePath {
 public:
  // Creates producer.db and consumer.db in `dir` through the library (for the schema), then
  // opens raw connections to them.
  RawSqlitePath(const std::filesystem::path& dir, RawDurability durability) {
    std::filesystem::create_directories(dir);
    ok_ = open(dir / "producer.db", durability, producer_) &&
          open(dir / "consumer.db", durability, consumer_) && prepare_all();
  }
  ~RawSqlitePath() {
    for (sqlite3_stmt* stmt : statements_) sqlite3_finalize(stmt);
    sqlite3_close_v2(producer_);
    sqlite3_close_v2(consumer_);
  }
  RawSqlitePath(const RawSqlitePath&) = delete;
  RawSqlitePath& operator=(const RawSqlitePath&) = delete;

  // Publishes `count` messages, `publish_batch` per transaction, then drains, delivers and
  // handles them in batches of 100 until all are handled. False on any SQLite error (printed).
  bool move(int count, int publish_batch) {
    return ok_ && publish(count, publish_batch > 0 ? publish_batch : 1) && drain(count);
  }

 private:
  static constexpr int kBatch = 100;  // the drain and inbox workers' max_batch
  static constexpr std::int64_t kLeaseMicros = 300'000'000;  // StoreOptions::lease_duration

  // The library's statements (runtime/src/store/sqlite/sql.hpp), less what only its generality
  // needs: a claim is one UPDATE ... RETURNING instead of a SELECT and an UPDATE per row, and
  // there is no heartbeat nor stream-order check. Each message is an event on a stream of its own
  // (an event with no stream key is its own stream): both claims append it to the event store,
  // in the claim's transaction.

  // store_outbox: a tombstoned or existing id is a duplicate. The publisher leases its own rows.
  static constexpr const char* kInsertOutbox =
      "INSERT INTO wh_outbox (message_id, destination, message_type, event_data, is_event, "
      "status, attempts, instance_id, lease_expiry, created_at, stream_id) "
      "SELECT ?1, ?2, ?3, ?4, 1, 1, 0, ?5, ?6, ?7, ?1 "
      "WHERE NOT EXISTS (SELECT 1 FROM wh_outbox_tombstones WHERE message_id = ?1) "
      "ON CONFLICT (message_id) DO NOTHING";
  // ?1 now ?2 instance ?3 lease expiry ?4 limit: due, live rows not leased to someone else. The
  // claim's transaction appends every row it claims (each is an event) to the event store, so
  // the same update marks them stored (status | 2), as the library's lease does.
  static constexpr const char* kClaimOutbox =
      "UPDATE wh_outbox SET instance_id = ?2, lease_expiry = ?3, status = status | 2 "
      "WHERE message_id IN ("
      "SELECT message_id FROM wh_outbox WHERE processed_at IS NULL AND dead_lettered_at IS NULL "
      "AND (scheduled_for IS NULL OR scheduled_for <= ?1) "
      "AND (instance_id IS NULL OR lease_expiry < ?1 OR instance_id = ?2) "
      "ORDER BY message_id LIMIT ?4) RETURNING message_id, message_type, event_data";
  // Completion of a published row: deleted while still ours, its id kept as a tombstone.
  static constexpr const char* kDeleteOutbox =
      "DELETE FROM wh_outbox WHERE message_id = ?1 AND (instance_id IS NULL OR instance_id = ?2)";
  static constexpr const char* kInsertTombstone =
      "INSERT INTO wh_outbox_tombstones (message_id, stored_at) VALUES (?1, ?2) "
      "ON CONFLICT (message_id) DO NOTHING";
  // store_inbox: permanent dedup first; only a first sighting becomes an inbox row.
  static constexpr const char* kInsertDeduplication =
      "INSERT INTO wh_message_deduplication (message_id, first_seen_at) VALUES (?1, ?2) "
      "ON CONFLICT (message_id) DO NOTHING";
  static constexpr const char* kInsertInbox =
      "INSERT INTO wh_inbox (message_id, handler_name, message_type, event_data, is_event, "
      "status, attempts, source_service_id, received_at, stream_id) "
      "VALUES (?1, ?2, ?3, ?4, 1, 1, 0, ?5, ?6, ?1) "
      "ON CONFLICT (message_id) DO NOTHING";
  static constexpr const char* kClaimInbox =
      "UPDATE wh_inbox SET instance_id = ?2, lease_expiry = ?3, status = status | 2 "
      "WHERE message_id IN ("
      "SELECT message_id FROM wh_inbox WHERE processed_at IS NULL AND dead_lettered_at IS NULL "
      "AND (scheduled_for IS NULL OR scheduled_for <= ?1) "
      "AND (instance_id IS NULL OR lease_expiry < ?1 OR instance_id = ?2) "
      "ORDER BY message_id LIMIT ?4) RETURNING message_id, message_type, event_data";
  // The event-store append of a claimed event: next version of its stream, the event.
  static constexpr const char* kStreamMaxVersion =
      "SELECT COALESCE(MAX(version), 0) FROM wh_event_store WHERE stream_id = ?1";
  static constexpr const char* kAppendEvent =
      "INSERT INTO wh_event_store (event_id, stream_id, aggregate_id, aggregate_type, event_type, "
      "event_data, metadata, version, created_at) VALUES (?1, ?1, ?1, ?2, ?2, ?3, ?4, ?5, ?6) "
      "ON CONFLICT (event_id) DO NOTHING";
  static constexpr const char* kInsertInvocation =
      "INSERT INTO wh_receptor_invocations (message_id, receptor_id, service_name, perspective, "
      "stage, completed_at, duration_us) VALUES (?1, ?2, ?3, '', ?4, ?5, ?6) "
      "ON CONFLICT DO NOTHING";
  static constexpr const char* kDeleteInbox =
      "DELETE FROM wh_inbox WHERE message_id = ?1 AND (instance_id IS NULL OR instance_id = ?2)";

  struct Row {
    whizbang::MessageId id;
    std::string type;
    std::string body;
  };

  static std::int64_t now_micros() {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  // A ~300-byte JSON envelope carrying the message's id, as a serialized envelope would.
  static std::string envelope(const whizbang::MessageId& id) {
    std::string json = "{\"v\":1,\"id\":\"" + id.to_string() +
                       "\",\"t\":\"bench::Tick\",\"p\":{\"sent_at_ns\":1718000000000000001},"
                       "\"h\":[{\"si\":{\"sn\":\"producer\",\"ii\":\"0190f3c4-aaaa-7bbb-8ccc-"
                       "000000000002\",\"hn\":\"host-1\",\"pi\":4242},\"ts\":1718000000000001,"
                       "\"to\":\"bench.tick\"}],\"dc\":{\"m\":3,\"s\":0,\"d\":false},"
                       "\"pad\":\"";
    json.append(300 - 2 - json.size(), '.');
    json += "\"}";
    return json;
  }

  bool fail(sqlite3* db, std::string_view what) {
    std::fprintf(stderr, "raw sqlite path: %.*s: %s\n", static_cast<int>(what.size()), what.data(),
                 sqlite3_errmsg(db));
    if (sqlite3_get_autocommit(db) == 0) sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return false;
  }

  bool open(const std::filesystem::path& path, RawDurability durability, sqlite3*& db) {
    {
      // The library's open runs the migrations and leaves the file in WAL mode.
      whizbang::StoreOptions options;
      options.durability = durability == RawDurability::Full ? whizbang::Durability::Full
                                                             : whizbang::Durability::Normal;
      auto store = whizbang::SqliteWorkStore::open(path.string(), options);
      if (!store.ok()) {
        std::fprintf(stderr, "raw sqlite path: %s\n",
                     std::string(store.status().message()).c_str());
        return false;
      }
    }
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) !=
        SQLITE_OK) {
      return fail(db, "open");
    }
    const char* pragmas = durability == RawDurability::Full
                              ? "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL"
                              : "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL";
    if (sqlite3_exec(db, pragmas, nullptr, nullptr, nullptr) != SQLITE_OK) return fail(db, pragmas);
    sqlite3_busy_timeout(db, 5000);
    return true;
  }

  bool prepare(sqlite3* db, const char* sql, sqlite3_stmt*& stmt) {
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr) != SQLITE_OK) {
      return fail(db, sql);
    }
    statements_.push_back(stmt);
    return true;
  }

  bool prepare_all() {
    return prepare(producer_, "BEGIN IMMEDIATE", producer_begin_) &&
           prepare(producer_, "COMMIT", producer_commit_) &&
           prepare(producer_, kInsertOutbox, insert_outbox_) &&
           prepare(producer_, kClaimOutbox, claim_outbox_) &&
           prepare(producer_, kDeleteOutbox, delete_outbox_) &&
           prepare(producer_, kStreamMaxVersion, producer_version_) &&
           prepare(producer_, kAppendEvent, producer_append_) &&
           prepare(consumer_, kStreamMaxVersion, consumer_version_) &&
           prepare(consumer_, kAppendEvent, consumer_append_) &&
           prepare(producer_, kInsertTombstone, insert_tombstone_) &&
           prepare(consumer_, "BEGIN IMMEDIATE", consumer_begin_) &&
           prepare(consumer_, "COMMIT", consumer_commit_) &&
           prepare(consumer_, kInsertDeduplication, insert_dedup_) &&
           prepare(consumer_, kInsertInbox, insert_inbox_) &&
           prepare(consumer_, kClaimInbox, claim_inbox_) &&
           prepare(consumer_, kInsertInvocation, insert_invocation_) &&
           prepare(consumer_, kDeleteInbox, delete_inbox_);
  }

  static void bind_id(sqlite3_stmt* stmt, int index, const whizbang::Uuid& id) {
    sqlite3_bind_blob(stmt, index, id.bytes().data(), 16, SQLITE_STATIC);
  }
  static void bind_text(sqlite3_stmt* stmt, int index, std::string_view text) {
    sqlite3_bind_text(stmt, index, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
  }

  // Steps a statement that returns no rows; `changes` gets the rows it touched.
  bool run(sqlite3* db, sqlite3_stmt* stmt, int* changes = nullptr) {
    const int code = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    if (code != SQLITE_DONE) return fail(db, sqlite3_sql(stmt));
    if (changes != nullptr) *changes = sqlite3_changes(db);
    return true;
  }

  bool publish(int count, int batch) {
    std::string body;
    for (int done = 0; done < count;) {
      const int n = std::min(batch, count - done);
      // One statement is its own transaction; a batch needs an explicit one.
      if (n > 1 && !run(producer_, producer_begin_)) return false;
      const std::int64_t now = now_micros();
      for (int i = 0; i < n; ++i) {
        const whizbang::MessageId id = whizbang::MessageId::mint();
        body = envelope(id);
        bind_id(insert_outbox_, 1, id.uuid());
        bind_text(insert_outbox_, 2, "consumer");
        bind_text(insert_outbox_, 3, "bench::Tick");
        bind_text(insert_outbox_, 4, body);
        bind_id(insert_outbox_, 5, producer_instance_);
        sqlite3_bind_int64(insert_outbox_, 6, now + kLeaseMicros);
        sqlite3_bind_int64(insert_outbox_, 7, now);
        if (!run(producer_, insert_outbox_)) return false;
      }
      if (n > 1 && !run(producer_, producer_commit_)) return false;
      done += n;
    }
    return true;
  }

  struct Side {
    sqlite3* db;
    sqlite3_stmt* begin;
    sqlite3_stmt* commit;
    sqlite3_stmt* claim;
    sqlite3_stmt* version;
    sqlite3_stmt* append;
    const whizbang::Uuid& instance;
  };
  Side producer_side() {
    return {producer_,         producer_begin_,  producer_commit_,  claim_outbox_,
            producer_version_, producer_append_, producer_instance_};
  }
  Side consumer_side() {
    return {consumer_,         consumer_begin_,  consumer_commit_,  claim_inbox_,
            consumer_version_, consumer_append_, consumer_instance_};
  }

  // A claim and the event-store append of what it claimed, in one transaction.
  bool claim_and_append(const Side& side, std::vector<Row>& rows) {
    if (!run(side.db, side.begin)) return false;
    if (!claim(side.db, side.claim, side.instance, rows)) return false;
    const std::int64_t now = now_micros();
    for (const Row& row : rows) {
      bind_id(side.version, 1, row.id.uuid());
      std::int64_t version = 1;
      if (sqlite3_step(side.version) == SQLITE_ROW) {
        version = sqlite3_column_int64(side.version, 0) + 1;
      }
      sqlite3_reset(side.version);
      bind_id(side.append, 1, row.id.uuid());
      bind_text(side.append, 2, row.type);
      bind_text(side.append, 3, row.body);
      bind_text(side.append, 4, "{\"MessageId\":\"\",\"Hops\":[]}");
      sqlite3_bind_int64(side.append, 5, version);
      sqlite3_bind_int64(side.append, 6, now);
      if (!run(side.db, side.append)) return false;
    }
    return run(side.db, side.commit);
  }

  // Runs a claim (UPDATE ... RETURNING) into `rows`.
  bool claim(sqlite3* db, sqlite3_stmt* stmt, const whizbang::Uuid& instance,
             std::vector<Row>& rows) {
    rows.clear();
    const std::int64_t now = now_micros();
    sqlite3_bind_int64(stmt, 1, now);
    bind_id(stmt, 2, instance);
    sqlite3_bind_int64(stmt, 3, now + kLeaseMicros);
    sqlite3_bind_int(stmt, 4, kBatch);
    int code = SQLITE_ROW;
    while ((code = sqlite3_step(stmt)) == SQLITE_ROW) {
      whizbang::Uuid::Bytes bytes{};
      if (sqlite3_column_bytes(stmt, 0) == 16) {
        std::memcpy(bytes.data(), sqlite3_column_blob(stmt, 0), 16);
      }
      Row& row = rows.emplace_back();
      row.id = whizbang::MessageId::from_trusted(whizbang::Uuid(bytes));
      row.type.assign(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1)),
                      static_cast<std::size_t>(sqlite3_column_bytes(stmt, 1)));
      row.body.assign(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 2)),
                      static_cast<std::size_t>(sqlite3_column_bytes(stmt, 2)));
    }
    sqlite3_reset(stmt);
    return code == SQLITE_DONE || fail(db, sqlite3_sql(stmt));
  }

  // The transport's delivery: the consumer stores the batch in its inbox, one transaction.
  bool deliver(const std::vector<Row>& rows) {
    if (!run(consumer_, consumer_begin_)) return false;
    const std::int64_t now = now_micros();
    for (const Row& row : rows) {
      bind_id(insert_dedup_, 1, row.id.uuid());
      sqlite3_bind_int64(insert_dedup_, 2, now);
      int changes = 0;
      if (!run(consumer_, insert_dedup_, &changes)) return false;
      if (changes == 0) continue;  // seen before: permanently deduplicated
      bind_id(insert_inbox_, 1, row.id.uuid());
      bind_text(insert_inbox_, 2, "consumer");
      bind_text(insert_inbox_, 3, row.type);
      bind_text(insert_inbox_, 4, row.body);
      bind_id(insert_inbox_, 5, producer_instance_);
      sqlite3_bind_int64(insert_inbox_, 6, now);
      if (!run(consumer_, insert_inbox_)) return false;
    }
    return run(consumer_, consumer_commit_);
  }

  // The producer's completion of the published batch, one transaction.
  bool complete_published(const std::vector<Row>& rows) {
    if (!run(producer_, producer_begin_)) return false;
    const std::int64_t now = now_micros();
    for (const Row& row : rows) {
      bind_id(delete_outbox_, 1, row.id.uuid());
      bind_id(delete_outbox_, 2, producer_instance_);
      int changes = 0;
      if (!run(producer_, delete_outbox_, &changes)) return false;
      if (changes == 0) continue;  // no longer ours
      bind_id(insert_tombstone_, 1, row.id.uuid());
      sqlite3_bind_int64(insert_tombstone_, 2, now);
      if (!run(producer_, insert_tombstone_)) return false;
    }
    return run(producer_, producer_commit_);
  }

  // The inbox worker's group commit: every claimed message's invocation record and completion
  // in one transaction.
  bool handle(const std::vector<Row>& rows) {
    if (!run(consumer_, consumer_begin_)) return false;
    const std::int64_t now = now_micros();
    for (const Row& row : rows) {
      bind_id(insert_invocation_, 1, row.id.uuid());
      bind_text(insert_invocation_, 2, "bench::TickReceptor");
      bind_text(insert_invocation_, 3, "consumer");
      sqlite3_bind_int(insert_invocation_, 4, static_cast<int>(whizbang::Stage::PostInboxInline));
      sqlite3_bind_int64(insert_invocation_, 5, now);
      sqlite3_bind_int64(insert_invocation_, 6, 0);  // duration: the receptor does nothing
      if (!run(consumer_, insert_invocation_)) return false;
      bind_id(delete_inbox_, 1, row.id.uuid());
      bind_id(delete_inbox_, 2, consumer_instance_);
      if (!run(consumer_, delete_inbox_)) return false;
    }
    return run(consumer_, consumer_commit_);
  }

  bool drain(int count) {
    std::vector<Row> outgoing;
    std::vector<Row> incoming;
    for (int handled = 0; handled < count;) {
      if (!claim_and_append(producer_side(), outgoing)) return false;
      if (!outgoing.empty() && !(deliver(outgoing) && complete_published(outgoing))) return false;
      if (!claim_and_append(consumer_side(), incoming)) return false;
      if (!incoming.empty() && !handle(incoming)) return false;
      if (outgoing.empty() && incoming.empty()) {
        std::fprintf(stderr, "raw sqlite path: stalled after %d of %d messages\n", handled, count);
        return false;
      }
      handled += static_cast<int>(incoming.size());
    }
    return true;
  }

  bool ok_ = false;
  sqlite3* producer_ = nullptr;
  sqlite3* consumer_ = nullptr;
  whizbang::Uuid producer_instance_ = whizbang::MessageId::mint().uuid();
  whizbang::Uuid consumer_instance_ = whizbang::MessageId::mint().uuid();
  std::vector<sqlite3_stmt*> statements_;
  sqlite3_stmt* producer_begin_ = nullptr;
  sqlite3_stmt* producer_commit_ = nullptr;
  sqlite3_stmt* insert_outbox_ = nullptr;
  sqlite3_stmt* claim_outbox_ = nullptr;
  sqlite3_stmt* delete_outbox_ = nullptr;
  sqlite3_stmt* producer_version_ = nullptr;
  sqlite3_stmt* producer_append_ = nullptr;
  sqlite3_stmt* consumer_version_ = nullptr;
  sqlite3_stmt* consumer_append_ = nullptr;
  sqlite3_stmt* insert_tombstone_ = nullptr;
  sqlite3_stmt* consumer_begin_ = nullptr;
  sqlite3_stmt* consumer_commit_ = nullptr;
  sqlite3_stmt* insert_dedup_ = nullptr;
  sqlite3_stmt* insert_inbox_ = nullptr;
  sqlite3_stmt* claim_inbox_ = nullptr;
  sqlite3_stmt* insert_invocation_ = nullptr;
  sqlite3_stmt* delete_inbox_ = nullptr;
};

}  // namespace bench
