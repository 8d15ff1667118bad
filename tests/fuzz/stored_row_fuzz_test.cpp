// Corrupt envelope text in SQLite outbox and inbox rows, written behind the store's back with
// sqlite3 (a bad disk, a bad migration, a hand edit). Claiming and draining must not crash: each
// corrupt row is quarantined (dead-lettered: Failed, SerializationError, its reason kept, never
// offered again),
// every good row is still delivered exactly once, and no row disappears unaccounted for.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "json_mutator.hpp"
#include "store/store_support.hpp"
#include "store_test_support.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"
#include "whizbang/transport/in_process_transport.hpp"
#include "whizbang/workers/inbox_worker.hpp"
#include "whizbang/workers/outbox_drain_worker.hpp"

namespace store_test {
namespace {

using namespace whizbang;
using namespace std::chrono_literals;
using namespace std::string_view_literals;

// How one row's stored envelope is replaced.
struct Corruption {
  std::string text;
  bool as_blob = false;  // stored with BLOB type in the TEXT column
};

// Envelopes no random mutant is likely to hit but a real corruption could: empty, embedded NUL,
// raw non-UTF-8 bytes, a stack-deep payload, a time TimePoint cannot hold. The 100000-deep
// payload is a regression: splitting it for the event store (Value::Accept, recursive) crashed the
// claim with a stack overflow before parsing was bounded.
std::vector<Corruption> fixed_corruptions(const std::string& valid) {
  const std::string payload_at = R"("p":)";
  const std::size_t p = valid.find(payload_at) + payload_at.size();
  const std::size_t ts = valid.find(R"("ts":)") + 5;
  return {
      {"", false},
      {"{", false},
      {std::string("{\"v\":1,\0\"id\":1}"sv), false},
      {valid.substr(0, valid.size() / 2) + std::string(1, '\0') + valid.substr(valid.size() / 2),
       false},
      {json_fuzz::replace_value(valid, p, "\"\xFF\xFE\xC0\x80\""), false},
      {json_fuzz::replace_value(valid, p, json_fuzz::deep_array(100'000, true)), false},
      {json_fuzz::deep_array(100'000, false), false},
      {json_fuzz::replace_value(valid, ts, "17960466169850204"), false},
      {std::string("\x89PNG\r\n\x1A\n\0\0"sv), true},
      {valid, true}};  // intact text, BLOB-typed: still readable, so delivered
}

class StoredRowFuzzTests : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions options;
    options.instance = instance("orders");
    options.now = clock_.fn();
    options.logger = log_.logger;
    auto store = SqliteWorkStore::open(dir_.file("store.db"), options);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    ASSERT_EQ(sqlite3_open(dir_.file("store.db").c_str(), &raw_), SQLITE_OK);
    sqlite3_busy_timeout(raw_, 5000);
  }
  void TearDown() override { sqlite3_close(raw_); }

  // Writes `corruption` over the envelope of row `id` in `table`, bypassing the store.
  void corrupt(const char* table, const MessageId& id, const Corruption& corruption) {
    const std::string sql =
        std::string("UPDATE ") + table + " SET event_data = ?1 WHERE message_id = ?2";
    sqlite3_stmt* stmt = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(raw_, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK);
    const int size = static_cast<int>(corruption.text.size());
    if (corruption.as_blob) {
      sqlite3_bind_blob(stmt, 1, corruption.text.data(), size, SQLITE_TRANSIENT);
    } else {
      sqlite3_bind_text(stmt, 1, corruption.text.data(), size, SQLITE_TRANSIENT);
    }
    sqlite3_bind_blob(stmt, 2, id.uuid().bytes().data(), 16, SQLITE_TRANSIENT);
    EXPECT_EQ(sqlite3_step(stmt), SQLITE_DONE) << sqlite3_errmsg(raw_);
    EXPECT_EQ(sqlite3_changes(raw_), 1);
    sqlite3_finalize(stmt);
  }

  std::int64_t count(const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(raw_, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
    std::int64_t n = -1;
    if (sqlite3_step(stmt) == SQLITE_ROW) n = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return n;
  }

  // Runs both workers (at least once) until no row is left unprocessed. Rows the claim itself
  // quarantines never reach a worker, so the workers' counts cannot tell when to stop.
  void drain() {
    OutboxDrainWorkerOptions outbox_options;
    outbox_options.logger = log_.logger;
    OutboxDrainWorker outbox(*store_, transport_, resolve, outbox_options);
    InboxWorkerOptions inbox_options;
    inbox_options.service_name = "orders";
    inbox_options.service_id = service_id_;
    inbox_options.logger = log_.logger;
    InboxWorker inbox(
        *store_, resolve,
        [this](InboxHandling& handling) {
          ++handled_[handling.item.message_id];
          return absl::OkStatus();
        },
        inbox_options);
    for (int cycle = 0; cycle < 50; ++cycle) {
      absl::StatusOr<DrainCycleResult> sent = outbox.run_once();
      ASSERT_TRUE(sent.ok()) << sent.status();
      absl::StatusOr<InboxCycleResult> received = inbox.run_once();
      ASSERT_TRUE(received.ok()) << received.status();
      EXPECT_EQ(sent->failed + received->failed + received->crashed, 0u);
      if (count("SELECT count(*) FROM wh_outbox WHERE processed_at IS NULL "
                "AND dead_lettered_at IS NULL") +
              count("SELECT count(*) FROM wh_inbox WHERE processed_at IS NULL "
                    "AND dead_lettered_at IS NULL") ==
          0) {
        return;
      }
    }
    ADD_FAILURE() << "rows are left unprocessed after 50 cycles";
  }

  // What the store and the workers must make of `json` in a row like `row`: quarantine when the
  // envelope does not decode, or when an event row's envelope cannot be split for the event store.
  static bool must_quarantine_outbox(std::string_view json, const OutboxMessage& row) {
    if (!deserialize_envelope(json, resolve).ok()) return true;
    return row.is_event && row.stream_id && !store_internal::event_parts(json).ok();
  }
  // The inbox also holds a delivery to what it was delivered as: its envelope must decode as the
  // row's type and carry the row's id (a mutated id or type is another message).
  static bool must_quarantine_inbox(std::string_view json, const OutboxMessage& row) {
    absl::StatusOr<Envelope> envelope = deserialize_envelope(json, resolve, row.message_type);
    if (!envelope.ok() || envelope->message_id != row.message_id) return true;
    return must_quarantine_outbox(json, row);
  }

  void expect_quarantined(const RowState& state, const std::string& label) {
    EXPECT_TRUE(has_status(state.status, MessageStatus::Failed)) << label;
    EXPECT_EQ(state.failure_reason, FailureReason::SerializationError) << label;
    EXPECT_FALSE(state.error.empty()) << label;
    EXPECT_TRUE(state.dead_lettered_at.has_value()) << label << ": would be offered again";
  }

  TempDir dir_;
  ManualClock clock_;
  CapturedLogger log_;
  std::unique_ptr<SqliteWorkStore> store_;
  sqlite3* raw_ = nullptr;
  InProcessTransport transport_;
  // The consumer of the commands among the rows (commands need one, or they stay in the outbox).
  std::unique_ptr<TransportSubscription> command_consumer_ =
      *transport_.subscribe("shipping", {{"inbox.store_test", ""}},
                            [](const TransportDestination&, std::span<const TransportMessage>) {
                              return absl::OkStatus();
                            });
  const Uuid service_id_ = MessageId::mint().uuid();
  std::map<MessageId, int> handled_;
};

// Commands to a topic, events on a stream (appended to the event store when claimed) and events
// without one, in turn.
OutboxMessage make_row(std::size_t i) {
  switch (i % 3) {
    case 0:
      return outbox_message(ShipOrderCommand{"s-" + std::to_string(i)}, "shipping");
    case 1:
      return outbox_message(OrderCreated{"o-" + std::to_string(i), static_cast<std::int64_t>(i)},
                            "orders", MessageId::mint().uuid());
    default:
      return outbox_message(AuditEvent{"a-" + std::to_string(i)}, "audit");
  }
}

TEST_F(StoredRowFuzzTests, CorruptStoredRows_AreQuarantinedAndGoodRowsDelivered) {
  constexpr std::size_t kGood = 9;
  const std::size_t random_mutants = json_fuzz::iterations(60);
  std::vector<OutboxMessage> rows;
  std::vector<Corruption> corruptions;  // corruptions[i] is for rows[kGood + i]
  for (std::size_t i = 0; i < kGood; ++i) rows.push_back(make_row(i));
  std::vector<std::string> samples;
  for (const OutboxMessage& row : rows) samples.push_back(row.envelope_json);
  json_fuzz::JsonMutator mutator(json_fuzz::kSeed, samples);
  for (const Corruption& fixed : fixed_corruptions(rows[1].envelope_json)) {
    rows.push_back(make_row(1));
    corruptions.push_back(fixed);
  }
  for (std::size_t i = 0; i < random_mutants; ++i) {
    rows.push_back(make_row(i));
    corruptions.push_back({mutator.mutate(rows.back().envelope_json), i % 7 == 6});
  }

  // The same rows arrive twice: published by this service, and delivered to its inbox.
  std::vector<InboxMessage> inbox_rows;
  for (const OutboxMessage& row : rows) inbox_rows.push_back(inbox_message(row, service_id_));
  ASSERT_TRUE(store_->store_outbox_messages(rows).ok());
  ASSERT_TRUE(store_->store_inbox_messages(inbox_rows, service_id_).ok());
  std::size_t quarantines = 0;
  std::vector<bool> outbox_quarantine(rows.size(), false);
  std::vector<bool> inbox_quarantine(rows.size(), false);
  for (std::size_t i = kGood; i < rows.size(); ++i) {
    const Corruption& corruption = corruptions[i - kGood];
    corrupt("wh_outbox", rows[i].message_id, corruption);
    corrupt("wh_inbox", rows[i].message_id, corruption);
    outbox_quarantine[i] = must_quarantine_outbox(corruption.text, rows[i]);
    inbox_quarantine[i] = must_quarantine_inbox(corruption.text, rows[i]);
    quarantines += (outbox_quarantine[i] ? 1 : 0) + (inbox_quarantine[i] ? 1 : 0);
  }
  const auto total = static_cast<std::int64_t>(rows.size());
  ASSERT_EQ(count("SELECT count(*) FROM wh_outbox"), total);
  ASSERT_EQ(count("SELECT count(*) FROM wh_inbox"), total);
  // Most corruptions must be real ones, or this test proves little.
  EXPECT_GT(quarantines, corruptions.size());

  drain();

  std::int64_t delivered = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const MessageId& id = rows[i].message_id;
    const std::string label = (i < kGood ? "good row " : "corrupt row ") + std::to_string(i);
    auto outbox_row = store_->find_outbox_row(id);
    auto inbox_row = store_->find_inbox_row(id);
    ASSERT_TRUE(outbox_row.ok() && inbox_row.ok()) << label;
    if (outbox_quarantine[i]) {
      ASSERT_TRUE(outbox_row->has_value()) << label << ": dropped from the outbox";
      expect_quarantined((*outbox_row)->state, label + " (outbox)");
      EXPECT_EQ(transport_.publish_count(id), 0u) << label;
    } else {
      EXPECT_FALSE(outbox_row->has_value()) << label << ": not published";
      EXPECT_EQ(transport_.publish_count(id), 1u) << label;
    }
    if (inbox_quarantine[i]) {
      ASSERT_TRUE(inbox_row->has_value()) << label << ": dropped from the inbox";
      expect_quarantined((*inbox_row)->state, label + " (inbox)");
      EXPECT_EQ(handled_.count(id), 0u) << label;
    } else {
      EXPECT_FALSE(inbox_row->has_value()) << label << ": not handled";
      EXPECT_EQ(handled_[id], 1) << label;
      ++delivered;
    }
  }
  // Accounting: every row is either still there (quarantined) or provably delivered.
  const std::int64_t kept_outbox = count("SELECT count(*) FROM wh_outbox");
  const std::int64_t kept_inbox = count("SELECT count(*) FROM wh_inbox");
  EXPECT_EQ(kept_outbox + kept_inbox, static_cast<std::int64_t>(quarantines));
  EXPECT_EQ(kept_outbox + count("SELECT count(*) FROM wh_outbox_tombstones"), total);
  EXPECT_EQ(kept_inbox + delivered, total);
  EXPECT_EQ(count("SELECT count(*) FROM wh_message_deduplication"), total);
  EXPECT_EQ(log_.sink->count(111, spdlog::level::warn), static_cast<int>(quarantines))
      << "each quarantine is logged once";

  // A quarantined row is never offered again, however much later.
  clock_.advance(24h);
  const std::size_t published = transport_.published_count();
  drain();
  EXPECT_EQ(transport_.published_count(), published);
  EXPECT_EQ(count("SELECT count(*) FROM wh_outbox") + count("SELECT count(*) FROM wh_inbox"),
            static_cast<std::int64_t>(quarantines));
  std::printf("[ fuzz     ] %zu stored-row corruptions (x2: outbox and inbox), %zu quarantines\n",
              corruptions.size(), quarantines);
}

TEST_F(StoredRowFuzzTests, EveryTruncationOfAStoredInboxRow_IsQuarantined) {
  // A command (quarantined by the inbox worker's decode) and an event on a stream (quarantined by
  // the claim, which splits it for the event store first), each cut at every length.
  std::vector<InboxMessage> rows;
  std::vector<std::string> prefixes;
  for (const std::size_t kind : {0u, 1u}) {
    const std::string valid = make_row(kind).envelope_json;
    for (std::size_t length = 0; length < valid.size(); ++length) {
      rows.push_back(inbox_message(make_row(kind), service_id_));
      prefixes.push_back(valid.substr(0, length));
    }
  }
  ASSERT_TRUE(store_->store_inbox_messages(rows, service_id_).ok());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    corrupt("wh_inbox", rows[i].message_id, {prefixes[i]});
  }
  drain();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string label =
        "prefix " + std::to_string(prefixes[i].size()) + " of " + rows[i].message_type;
    auto row = store_->find_inbox_row(rows[i].message_id);
    ASSERT_TRUE(row.ok() && row->has_value()) << label << " dropped";
    expect_quarantined((*row)->state, label);
  }
  EXPECT_TRUE(handled_.empty());
  EXPECT_EQ(count("SELECT count(*) FROM wh_inbox"), static_cast<std::int64_t>(rows.size()));
  EXPECT_EQ(log_.sink->count(111, spdlog::level::warn), static_cast<int>(rows.size()));
}

// Regression: receive() peeks at a delivery's "ss" before storing it, with a parser that recursed
// once per nesting level, so a 1 MB delivery of '[' crashed the subscriber. It is now stored like
// any corrupt delivery and quarantined when claimed.
// Refused at the door, never decoded past the nesting bound: kept as a dead letter, cut to what
// the store keeps of a refused delivery.
TEST_F(StoredRowFuzzTests, DeeplyNestedDelivery_RefusedAndKeptCut) {
  InboxWorkerOptions options;
  options.service_name = "orders";
  options.service_id = service_id_;
  InboxWorker inbox(*store_, resolve, [](InboxHandling&) { return absl::OkStatus(); }, options);
  const OutboxMessage row = make_row(0);
  const TransportMessage delivery{row.message_id, row.message_type,
                                  json_fuzz::deep_array(1'000'000, /*closed=*/false), row.stream_id,
                                  row.is_event};
  ASSERT_TRUE(inbox.receive({&delivery, 1}).ok());
  drain();
  auto original = store_->find_inbox_row(row.message_id);
  ASSERT_TRUE(original.ok());
  EXPECT_FALSE(original->has_value());
  auto letters = store_->dead_letters(10);
  ASSERT_TRUE(letters.ok() && letters->size() == 1u);
  EXPECT_NE(letters->front().error.find("bytes kept"), std::string::npos) << letters->front().error;
}

}  // namespace
}  // namespace store_test
