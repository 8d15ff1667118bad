// The store of the dead-letter command tests: a SQLite store whose dead letters the runtime made,
// one of each kind (outbox, inbox, perspective event, lifecycle completion, detached work), each
// with its own reason and error, and what `whizbang store dead-letters` should say about them.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli_test_run.hpp"
#include "rapidjson/document.h"
#include "store_test_support.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"

namespace whizbang::cli::test {

using store_test::inbox_message;
using store_test::OrderCreated;
using store_test::outbox_message;
using store_test::ShipOrderCommand;

inline constexpr const char* kStreamA = "0190f3c4-1a2b-7c3d-8e4f-0000000000a1";
inline constexpr const char* kStreamB = "0190f3c4-1a2b-7c3d-8e4f-0000000000b2";
// A transport error over two lines, with quotes: escaped in JSON, one line in the table.
inline constexpr const char* kOutboxError = "broker refused \"shipping\"\nqueue not found";

inline std::string text(const rapidjson::Value& object, const char* key) {
  return object[key].IsString() ? object[key].GetString() : "<not a string>";
}

// What one dead letter of the fixture should be.
struct Expected {
  std::string source;
  MessageId id;
  std::string message_type;
  std::string target;
  std::optional<std::string> stream_id;
  int attempts;
  std::string reason;
  TimePoint dead_lettered_at;
  std::string error;
};

class DeadLetterStoreTest : public ::testing::Test {
 protected:
  // At t0 + 1 s the outbox command is dead-lettered at once (TransportException); the inbox row
  // fails at t0 + 2 s and again, its second and last attempt (max_attempts 2), at t0 + 63 s
  // (MaxAttemptsExceeded); at t0 + 64 s the OrderSummary perspective event of the event on
  // stream A is dead-lettered, at t0 + 65 s the lifecycle completion of the event on stream B,
  // and at t0 + 66 s a detached receptor's work. Two outbox events stay live, leased rows.
  void SetUp() override {
    using namespace std::chrono_literals;
    path_ = dir_.file("orders.db");
    const TimePoint t0 = clock_.now();
    auto store = open_store();
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(
        store->add_perspective_association("store_test::OrderCreated", "OrderSummary").ok());
    const OutboxMessage command = outbox_message(ShipOrderCommand{"o-1"}, "shipping");
    const OutboxMessage event_a =
        outbox_message(OrderCreated{"o-a", 1}, "orders", *Uuid::parse(kStreamA));
    const OutboxMessage event_b =
        outbox_message(OrderCreated{"o-b", 2}, "orders", *Uuid::parse(kStreamB));
    ASSERT_TRUE(store->store_outbox_messages(std::vector{command, event_a, event_b}).ok());
    const InboxMessage inbound =
        inbox_message(outbox_message(ShipOrderCommand{"in-1"}, "shipping"));
    ASSERT_TRUE(store->store_inbox_messages({&inbound, 1}, MessageId::mint().uuid()).ok());
    ASSERT_EQ(claim(*store).size(), 4u);

    clock_.advance(1s);
    fail(*store, {WorkSource::Outbox, command.message_id, MessageStatus::None, kOutboxError,
                  FailureReason::TransportException, /*dead_letter=*/true});
    clock_.advance(1s);
    fail(*store, {WorkSource::Inbox, inbound.message_id, MessageStatus::None, "first try",
                  FailureReason::Unknown, false});
    clock_.advance(61s);  // past the 60 s backoff
    ASSERT_EQ(count_id(claim(*store), inbound.message_id), 1);
    fail(*store, {WorkSource::Inbox, inbound.message_id, MessageStatus::None,
                  "handler threw: out of stock", FailureReason::Unknown, false});

    clock_.advance(1s);
    auto work = store->claim_perspective_work(10);
    ASSERT_TRUE(work.ok()) << work.status();
    ASSERT_EQ(work->size(), 2u);
    const PerspectiveWork& on_a =
        (*work)[0].event_id == event_a.message_id ? (*work)[0] : (*work)[1];
    const PerspectiveWork& on_b =
        (*work)[0].event_id == event_a.message_id ? (*work)[1] : (*work)[0];
    ASSERT_TRUE(
        store->fail_perspective_work(on_a.event_work_id, "cannot apply: bad model", true).ok());

    clock_.advance(1s);
    ASSERT_TRUE(store->complete_perspective_work(std::vector{on_b.event_work_id}).ok());
    auto lifecycle = store->claim_lifecycle_work(10);
    ASSERT_TRUE(lifecycle.ok()) << lifecycle.status();
    ASSERT_EQ(lifecycle->size(), 1u);
    ASSERT_TRUE(store->fail_lifecycle_work(event_b.message_id, "PostLifecycle threw", true).ok());

    clock_.advance(1s);
    DetachedWork detached;
    detached.work_id = MessageId::mint();
    detached.message_id = event_b.message_id;
    detached.message_type = "store_test::OrderCreated";
    detached.receptor_id = "shop::EmailCustomer";
    detached.envelope_json = event_b.envelope_json;
    ASSERT_TRUE(store->store_detached_work(detached).ok());
    ASSERT_TRUE(store->fail_detached_work(detached.work_id, "smtp: 550 mailbox full", true).ok());

    expected_ = {
        {"outbox", command.message_id, "store_test::ShipOrderCommand", "shipping", std::nullopt, 1,
         "TransportException", t0 + 1s, kOutboxError},
        {"inbox", inbound.message_id, "store_test::ShipOrderCommand",
         "store_test::ShipOrderCommandHandler", std::nullopt, 2, "MaxAttemptsExceeded", t0 + 63s,
         "handler threw: out of stock"},
        {"perspective event", on_a.event_work_id, "store_test::OrderCreated", "OrderSummary",
         kStreamA, 1, "Unknown", t0 + 64s, "cannot apply: bad model"},
        {"lifecycle completion", event_b.message_id, "store_test::OrderCreated",
         "PostAllPerspectives/PostLifecycle", kStreamB, 1, "Unknown", t0 + 65s,
         "PostLifecycle threw"},
        {"detached work", detached.work_id, "store_test::OrderCreated", "shop::EmailCustomer",
         std::nullopt, 1, "Unknown", t0 + 66s, "smtp: 550 mailbox full"},
    };
    live_outbox_ = {event_a.message_id, event_b.message_id};
  }  // the store closes: its WAL is checkpointed and removed, as a stopped service leaves it

  std::unique_ptr<SqliteWorkStore> open_store() {
    StoreOptions options;
    options.now = clock_.fn();
    options.max_attempts = 2;
    auto store = SqliteWorkStore::open(path_, options);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }
  static std::vector<WorkItem> claim(SqliteWorkStore& store) {
    auto items = store.process_work_batch(WorkBatchRequest{});
    EXPECT_TRUE(items.ok()) << items.status();
    return items.ok() ? *items : std::vector<WorkItem>{};
  }
  static int count_id(const std::vector<WorkItem>& items, const MessageId& id) {
    return static_cast<int>(std::count_if(
        items.begin(), items.end(), [&](const WorkItem& item) { return item.message_id == id; }));
  }
  static void fail(SqliteWorkStore& store, const WorkFailure& failure) {
    ASSERT_TRUE(store.complete_work({}, {&failure, 1}).ok());
  }

  // The ids `dead-letters --json` lists, in its order.
  std::vector<std::string> listed_ids() {
    const CliRun r = run_binary({"store", "dead-letters", path_, "--json"});
    EXPECT_EQ(r.code, 0) << r.err;
    const rapidjson::Document json = parse_json(r.out);
    std::vector<std::string> ids;
    if (!json.IsArray()) return ids;
    for (const rapidjson::Value& letter : json.GetArray()) ids.push_back(text(letter, "id"));
    return ids;
  }
  std::vector<std::string> expected_ids(std::initializer_list<int> which) const {
    std::vector<std::string> ids;
    for (const int i : which) ids.push_back(expected_[static_cast<std::size_t>(i)].id.to_string());
    return ids;
  }

  store_test::TempDir dir_;
  store_test::ManualClock clock_;
  std::string path_;
  std::vector<Expected> expected_;
  std::vector<MessageId> live_outbox_;
};

}  // namespace whizbang::cli::test
