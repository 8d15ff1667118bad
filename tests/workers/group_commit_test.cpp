// Savepoints (the WorkStore contract, on every backend) and the inbox worker's group commit built
// on them: the handlings of a claimed batch commit together, a failing one rolls back alone, a
// crash loses the open group and its rows are handled again with the same emitted ids.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>

#include "store_backends.hpp"
#include "whizbang/ids/derived_identity.hpp"
#include "whizbang/testing/inbox_faults.hpp"
#include "whizbang/workers/inbox_worker.hpp"

namespace store_test {
namespace {

using namespace whizbang;
using namespace std::chrono_literals;

template <class Backend>
class GroupCommitTests : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.instance = instance("shipping");
    options_.now = clock_.fn();
    options_.metrics = metrics_;
    store_ = Backend::open(options_, dir_);
    ASSERT_NE(store_, nullptr);
    listener_ = store_->add_commit_listener([this](const CommitInfo& info) {
      if (info.outbox_written) ++commits_that_wrote_outbox_;
      if (info.inbox_written) ++commits_that_wrote_inbox_;
    });
  }
  void TearDown() override {
    if (store_) store_->remove_commit_listener(listener_);
  }

  bool has_outbox_row(const MessageId& id) {
    auto row = whizbang::reader_of(*store_)->find_outbox_row(id);
    EXPECT_TRUE(row.ok()) << row.status();
    return row.ok() && row->has_value();
  }
  bool has_inbox_row(const MessageId& id) {
    auto row = whizbang::reader_of(*store_)->find_inbox_row(id);
    EXPECT_TRUE(row.ok()) << row.status();
    return row.ok() && row->has_value();
  }
  OutboxMessage stored(int n) {
    const OutboxMessage message = outbox_message(OrderCreated{"o-" + std::to_string(n), n}, "x");
    EXPECT_TRUE(store_->store_outbox_messages({&message, 1}).ok());
    return message;
  }

  // `count` commands in the inbox, each of a stream of its own.
  std::vector<InboxMessage> deliver(int count) {
    std::vector<InboxMessage> rows;
    for (int i = 0; i < count; ++i) {
      rows.push_back(inbox_message(outbox_message(ShipOrderCommand{"o-" + std::to_string(i)},
                                                  "shipping", MessageId::mint().uuid())));
    }
    EXPECT_TRUE(store_->store_inbox_messages(rows, MessageId::mint().uuid()).ok());
    return rows;
  }

  // The handler: emits one event whose id derives from the handling (the same on every retry);
  // throws for the orders in `throwing`.
  InboxHandler emitting_handler(std::set<std::string> throwing = {}) {
    return [this, throwing](InboxHandling& handling) -> absl::Status {
      const std::string& order = handling.envelope.payload.get_if<ShipOrderCommand>()->order_id;
      ++handlings_[order];
      absl::StatusOr<MessageId> id = EmissionIdentity::derive(
          handling.envelope.message_id.uuid(), "shipping",
          handling.envelope.dispatch_context.handler_name, "store_test::OrderCreated",
          handling.envelope.emission_sequence().next());
      if (!id.ok()) return id.status();
      emitted_[order] = *id;
      const OutboxMessage event =
          outbox_message(OrderCreated{order, 1}, "events", std::nullopt, *id);
      auto rows = handling.store.store_outbox_messages({&event, 1});
      if (!rows.ok()) return rows.status();
      if (throwing.contains(order)) throw std::runtime_error("receptor failed for " + order);
      return absl::OkStatus();
    };
  }

  // `count` commands as a transport delivers them, each of a stream of its own.
  std::vector<TransportMessage> delivery(int count, int first = 0) {
    std::vector<TransportMessage> batch;
    for (int i = first; i < first + count; ++i) {
      batch.push_back(transport_message(outbox_message(ShipOrderCommand{"o-" + std::to_string(i)},
                                                       "shipping", MessageId::mint().uuid())));
    }
    return batch;
  }
  // How many of `batch` have an inbox row (stored, not yet handled).
  std::size_t waiting(const std::vector<TransportMessage>& batch) {
    std::size_t rows = 0;
    for (const TransportMessage& message : batch) rows += has_inbox_row(message.message_id);
    return rows;
  }

  // The same, handling each delivery as it is stored.
  InboxWorkerOptions on_delivery_options(std::size_t max_group = 100) {
    InboxWorkerOptions options = worker_options(max_group);
    options.handle_on_delivery = true;
    return options;
  }

  InboxWorkerOptions worker_options(std::size_t max_group = 100) {
    InboxWorkerOptions options;
    options.service_name = "shipping";
    options.service_id = options_.instance.instance_id;
    options.max_group = max_group;
    options.max_group_duration = 1h;  // groups end by size here, never by the clock
    return options;
  }

  TempDir dir_;
  ManualClock clock_;
  std::shared_ptr<InMemoryMetrics> metrics_ = std::make_shared<InMemoryMetrics>();
  StoreOptions options_;
  std::unique_ptr<WorkStore> store_;
  int listener_ = 0;
  int commits_that_wrote_outbox_ = 0;
  int commits_that_wrote_inbox_ = 0;
  std::map<std::string, int> handlings_;
  std::map<std::string, MessageId> emitted_;
};

TYPED_TEST_SUITE(GroupCommitTests, Backends, BackendNames);

TYPED_TEST(GroupCommitTests, Savepoint_RolledBack_UndoesOnlyWhatCameAfterIt) {
  Transaction tx(*this->store_);
  ASSERT_TRUE(tx.status().ok());
  const OutboxMessage before = this->stored(1);
  {
    Savepoint savepoint(*this->store_);
    ASSERT_TRUE(savepoint.status().ok()) << savepoint.status();
    const OutboxMessage inside = this->stored(2);
    EXPECT_TRUE(this->has_outbox_row(inside.message_id)) << "visible inside";
    ASSERT_TRUE(savepoint.rollback().ok());
    EXPECT_FALSE(this->has_outbox_row(inside.message_id));
  }
  const OutboxMessage after = this->stored(3);
  ASSERT_TRUE(tx.commit().ok());
  EXPECT_TRUE(this->has_outbox_row(before.message_id));
  EXPECT_TRUE(this->has_outbox_row(after.message_id));
}

TYPED_TEST(GroupCommitTests, Savepoint_Released_ItsWritesLiveAndDieWithTheTransaction) {
  MessageId committed;
  {
    Transaction tx(*this->store_);
    Savepoint savepoint(*this->store_);
    committed = this->stored(1).message_id;
    ASSERT_TRUE(savepoint.release().ok());
    ASSERT_TRUE(tx.commit().ok());
  }
  EXPECT_TRUE(this->has_outbox_row(committed));
  MessageId rolled_back;
  {
    Transaction tx(*this->store_);
    Savepoint savepoint(*this->store_);
    rolled_back = this->stored(2).message_id;
    ASSERT_TRUE(savepoint.release().ok());
  }  // the transaction rolls back, the released savepoint's writes with it
  EXPECT_FALSE(this->has_outbox_row(rolled_back));
}

TYPED_TEST(GroupCommitTests, Savepoints_Nest) {
  Transaction tx(*this->store_);
  Savepoint outer(*this->store_);
  const OutboxMessage kept = this->stored(1);
  Savepoint inner(*this->store_);
  ASSERT_TRUE(inner.status().ok()) << inner.status();
  const OutboxMessage undone = this->stored(2);
  ASSERT_TRUE(inner.rollback().ok());
  ASSERT_TRUE(outer.release().ok());
  ASSERT_TRUE(tx.commit().ok());
  EXPECT_TRUE(this->has_outbox_row(kept.message_id));
  EXPECT_FALSE(this->has_outbox_row(undone.message_id));
}

TYPED_TEST(GroupCommitTests, Savepoint_NestedRollbackInsideIt_DoomsOnlyTheSavepoint) {
  Transaction tx(*this->store_);
  const OutboxMessage before = this->stored(1);
  Savepoint savepoint(*this->store_);
  const OutboxMessage inside = this->stored(2);
  ASSERT_TRUE(this->store_->begin().ok());     // a handling's own Transaction joins...
  ASSERT_TRUE(this->store_->rollback().ok());  // ...and rolls back: the savepoint is doomed
  EXPECT_EQ(savepoint.release().code(), absl::StatusCode::kAborted) << "rolled back instead";
  EXPECT_FALSE(this->has_outbox_row(inside.message_id));
  ASSERT_TRUE(tx.commit().ok()) << "the transaction itself is not doomed";
  EXPECT_TRUE(this->has_outbox_row(before.message_id));
}

TYPED_TEST(GroupCommitTests, Savepoint_WithoutATransaction_IsRefused) {
  EXPECT_EQ(this->store_->savepoint().code(), absl::StatusCode::kFailedPrecondition);
  Transaction tx(*this->store_);
  EXPECT_EQ(this->store_->release_savepoint().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(this->store_->rollback_to_savepoint().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(tx.commit().ok()) << "refusals do not doom the transaction";
}

TYPED_TEST(GroupCommitTests, InboxBatch_HandledInOneCommit) {
  const std::vector<InboxMessage> rows = this->deliver(10);
  InboxWorker worker(*this->store_, resolve, this->emitting_handler(), this->worker_options());
  absl::StatusOr<InboxCycleResult> result = worker.run_once();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->handled, 10u);
  EXPECT_EQ(this->commits_that_wrote_outbox_, 1) << "one commit for the whole batch";
  for (const InboxMessage& row : rows) EXPECT_FALSE(this->has_inbox_row(row.message_id));
  for (const auto& [order, id] : this->emitted_) EXPECT_TRUE(this->has_outbox_row(id)) << order;
}

TYPED_TEST(GroupCommitTests, InboxBatch_MaxGroupSplitsItsCommits) {
  this->deliver(5);
  InboxWorker worker(*this->store_, resolve, this->emitting_handler(), this->worker_options(2));
  absl::StatusOr<InboxCycleResult> result = worker.run_once();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->handled, 5u);
  EXPECT_EQ(this->commits_that_wrote_outbox_, 3) << "groups of 2, 2 and 1";
}

TYPED_TEST(GroupCommitTests, InboxBatch_GroupOpenPastItsDuration_CommitsAfterTheHandling) {
  this->deliver(3);
  InboxWorkerOptions options = this->worker_options();
  options.max_group_duration = 0ms;  // every group is old enough after its first handling
  InboxWorker worker(*this->store_, resolve, this->emitting_handler(), options);
  absl::StatusOr<InboxCycleResult> result = worker.run_once();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->handled, 3u);
  EXPECT_EQ(this->commits_that_wrote_outbox_, 3);
}

TYPED_TEST(GroupCommitTests, InboxBatch_ThrowingHandlingRollsBackAlone_OthersCommitTogether) {
  const std::vector<InboxMessage> rows = this->deliver(5);
  InboxWorker worker(*this->store_, resolve, this->emitting_handler({"o-2"}),
                     this->worker_options());
  absl::StatusOr<InboxCycleResult> result = worker.run_once();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->handled, 4u);
  EXPECT_EQ(result->failed, 1u);
  EXPECT_EQ(this->commits_that_wrote_outbox_, 1);
  for (const auto& [order, id] : this->emitted_) {
    EXPECT_EQ(this->has_outbox_row(id), order != "o-2") << order;
  }
  // The failed row stays, with its attempt recorded, and is retried after its backoff.
  auto failed = whizbang::reader_of(*this->store_)->find_inbox_row(rows[2].message_id);
  ASSERT_TRUE(failed.ok() && failed->has_value());
  EXPECT_EQ((*failed)->state.attempts, 1);
  EXPECT_FALSE(this->has_inbox_row(rows[1].message_id));
}

TYPED_TEST(GroupCommitTests, InboxBatch_CrashLosesTheOpenGroup_RetryEmitsTheSameIdsOnce) {
  const std::vector<InboxMessage> rows = this->deliver(5);
  InboxWorkerOptions options = this->worker_options();
  int completions = 0;
  const whizbang::fault_injection::ScopedInboxFaults faults(
      options.service_name, {.split_completion = false, .before_completion = [&](const WorkItem&) {
                               return ++completions == 3 ? absl::UnavailableError("killed")
                                                         : absl::OkStatus();
                             }});
  InboxWorker worker(*this->store_, resolve, this->emitting_handler(), options);
  absl::StatusOr<InboxCycleResult> crashed = worker.run_once();
  ASSERT_TRUE(crashed.ok()) << crashed.status();
  EXPECT_EQ(crashed->handled, 0u);
  EXPECT_EQ(crashed->crashed, 3u) << "the two handled before it were in its group";
  EXPECT_EQ(this->commits_that_wrote_outbox_, 0);
  const std::map<std::string, MessageId> first_ids = this->emitted_;
  for (const auto& [order, id] : first_ids) EXPECT_FALSE(this->has_outbox_row(id)) << order;

  this->clock_.advance(this->options_.lease_duration + 1s);
  absl::StatusOr<InboxCycleResult> retried = worker.run_once();
  ASSERT_TRUE(retried.ok()) << retried.status();
  EXPECT_EQ(retried->handled, 5u);
  for (const InboxMessage& row : rows) EXPECT_FALSE(this->has_inbox_row(row.message_id));
  for (const auto& [order, id] : first_ids) {
    EXPECT_EQ(this->emitted_[order], id) << "re-derived: " << order;
    EXPECT_TRUE(this->has_outbox_row(id)) << order;
  }
  EXPECT_EQ(this->handlings_["o-0"], 2);
  EXPECT_EQ(this->handlings_["o-4"], 1) << "never reached before the crash";
}

// Handling on delivery: storing the delivered batch, its claim and its handlings are one commit,
// and the delivery is acknowledged (OK) only after it.
TYPED_TEST(GroupCommitTests, DeliveredBatch_StoredClaimedAndHandledInOneCommit) {
  InboxWorker worker(*this->store_, resolve, this->emitting_handler(), this->on_delivery_options());
  const std::vector<TransportMessage> batch = this->delivery(5);
  ASSERT_TRUE(worker.receive(batch).ok());
  EXPECT_EQ(this->handlings_.size(), 5u) << "handled before receive() returned";
  EXPECT_EQ(this->commits_that_wrote_inbox_, 1);
  EXPECT_EQ(this->commits_that_wrote_outbox_, 1) << "the emissions in the same commit";
  EXPECT_EQ(this->waiting(batch), 0u);
  for (const auto& [order, id] : this->emitted_) EXPECT_TRUE(this->has_outbox_row(id)) << order;
  EXPECT_EQ(worker.loop().cycles(), 0u) << "no worker cycle was needed";
}

TYPED_TEST(GroupCommitTests, DeliveredBatch_WithoutHandlingOnDelivery_WaitsForTheWorker) {
  InboxWorker worker(*this->store_, resolve, this->emitting_handler(), this->worker_options());
  const std::vector<TransportMessage> batch = this->delivery(5);
  ASSERT_TRUE(worker.receive(batch).ok());
  EXPECT_TRUE(this->handlings_.empty());
  EXPECT_EQ(this->waiting(batch), 5u);
}

TYPED_TEST(GroupCommitTests, DeliveredTwice_HandledOnce) {
  InboxWorker worker(*this->store_, resolve, this->emitting_handler(), this->on_delivery_options());
  const std::vector<TransportMessage> batch = this->delivery(3);
  ASSERT_TRUE(worker.receive(batch).ok());
  ASSERT_TRUE(worker.receive(batch).ok()) << "a redelivery is acknowledged";
  for (const auto& [order, count] : this->handlings_) EXPECT_EQ(count, 1) << order;
  EXPECT_EQ(this->handlings_.size(), 3u);
}

TYPED_TEST(GroupCommitTests, DeliveredBatch_ThrowingHandlingIsRetriedLater_BatchAcknowledged) {
  InboxWorker worker(*this->store_, resolve, this->emitting_handler({"o-1"}),
                     this->on_delivery_options());
  const std::vector<TransportMessage> batch = this->delivery(3);
  ASSERT_TRUE(worker.receive(batch).ok()) << "the failure is the row's, not the delivery's";
  auto failed = whizbang::reader_of(*this->store_)->find_inbox_row(batch[1].message_id);
  ASSERT_TRUE(failed.ok() && failed->has_value());
  EXPECT_EQ((*failed)->state.attempts, 1);
  EXPECT_FALSE(this->has_inbox_row(batch[0].message_id));
  EXPECT_FALSE(this->has_inbox_row(batch[2].message_id));
}

TYPED_TEST(GroupCommitTests, DeliveredBatch_CrashBeforeTheCommit_NothingStoredDeliveryRefused) {
  InboxWorkerOptions options = this->on_delivery_options();
  bool crash = true;
  const whizbang::fault_injection::ScopedInboxFaults faults(
      options.service_name, {.split_completion = false, .before_completion = [&](const WorkItem&) {
                               return crash ? absl::UnavailableError("killed") : absl::OkStatus();
                             }});
  InboxWorker worker(*this->store_, resolve, this->emitting_handler(), options);
  const std::vector<TransportMessage> batch = this->delivery(2);
  EXPECT_FALSE(worker.receive(batch).ok()) << "not acknowledged: the broker delivers it again";
  EXPECT_EQ(this->waiting(batch), 0u) << "the rows rolled back with the handling";
  EXPECT_EQ(this->handlings_.size(), 1u) << "the crash came after the first handling";
  crash = false;
  ASSERT_TRUE(worker.receive(batch).ok());
  EXPECT_EQ(this->handlings_.size(), 2u);
  EXPECT_EQ(this->handlings_["o-0"] + this->handlings_["o-1"], 3) << "the lost one again";
  EXPECT_EQ(this->waiting(batch), 0u);
}

// A delivering thread handles one group, then acknowledges: what is left of the claim is the
// worker thread's (still leased to this instance, so its next claim takes it at once).
TYPED_TEST(GroupCommitTests, DeliveredBatch_HandlesOneGroup_TheWorkerTheRest) {
  InboxWorker worker(*this->store_, resolve, this->emitting_handler(),
                     this->on_delivery_options(2));
  const std::vector<TransportMessage> batch = this->delivery(5);
  ASSERT_TRUE(worker.receive(batch).ok());
  EXPECT_EQ(this->handlings_.size(), 2u);
  EXPECT_EQ(this->waiting(batch), 3u);
  absl::StatusOr<InboxCycleResult> rest = worker.run_once();
  ASSERT_TRUE(rest.ok()) << rest.status();
  EXPECT_EQ(rest->handled, 3u) << "claimed again by this instance, before their leases lapse";
  EXPECT_EQ(this->waiting(batch), 0u);
}

TYPED_TEST(GroupCommitTests, DeliveredAfterStop_OnlyStored) {
  InboxWorker worker(*this->store_, resolve, this->emitting_handler(), this->on_delivery_options());
  worker.stop();  // as a host stopping: no receptor of this service runs after it
  const std::vector<TransportMessage> batch = this->delivery(2);
  ASSERT_TRUE(worker.receive(batch).ok());
  EXPECT_TRUE(this->handlings_.empty());
  EXPECT_EQ(this->waiting(batch), 2u) << "kept for the next start";
}

// A delivery that comes while the worker thread is in a cycle is only stored (the delivering
// thread never waits for the worker's receptors); the worker handles it next.
TYPED_TEST(GroupCommitTests, DeliveredDuringAWorkerCycle_OnlyStored) {
  this->deliver(1);
  InboxWorkerOptions options = this->on_delivery_options();
  const std::vector<TransportMessage> late = this->delivery(2, 10);
  InboxWorker* self = nullptr;
  std::thread delivering;
  bool started = false;
  absl::Status delivered = absl::UnknownError("not delivered");
  InboxHandler handler = [&, inner = this->emitting_handler()](InboxHandling& handling) {
    if (!std::exchange(started, true)) {
      delivering = std::thread([&] { delivered = self->receive(late).status; });
      // Once the store counts it waiting, the delivery is queued behind this cycle's open
      // group: it found the cycle under way and went on to only store its rows.
      const auto deadline = std::chrono::steady_clock::now() + 10s;
      while (this->metrics_->counter(metric_names::kWorkCoordinatorMeter,
                                     metric_names::kTransactionWaits) == 0 &&
             std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
      }
    }
    return inner(handling);
  };
  InboxWorker worker(*this->store_, resolve, handler, options);
  self = &worker;
  const absl::StatusOr<InboxCycleResult> first = worker.run_once();
  if (delivering.joinable()) delivering.join();
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(delivered.ok()) << delivered;
  EXPECT_EQ(this->handlings_.size(), 1u);
  EXPECT_EQ(this->waiting(late), 2u);
  absl::StatusOr<InboxCycleResult> next = worker.run_once();
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(next->handled, 2u);
  EXPECT_EQ(this->handlings_.size(), 3u);
}

// Commands of one stream as a transport delivers them, in order.
std::vector<TransportMessage> stream_delivery(const Uuid& stream, std::vector<std::string> orders) {
  std::vector<TransportMessage> batch;
  for (const std::string& order : orders) {
    batch.push_back(transport_message(outbox_message(ShipOrderCommand{order}, "shipping", stream)));
  }
  return batch;
}

// Stream order on delivery: a failing handling holds back the rest of its stream in the batch;
// they wait, as rows, behind its retry. Another stream's message is handled all the same.
TYPED_TEST(GroupCommitTests, DeliveredBatch_FailureHoldsBackTheRestOfItsStream) {
  bool a1_throws = true;  // on its first handling only
  InboxHandler handler = [&, inner = this->emitting_handler()](InboxHandling& handling) {
    const std::string& order = handling.envelope.payload.get_if<ShipOrderCommand>()->order_id;
    absl::Status status = inner(handling);
    if (order == "a-1" && std::exchange(a1_throws, false)) {
      throw std::runtime_error("receptor failed for a-1");
    }
    return status;
  };
  InboxWorker worker(*this->store_, resolve, handler, this->on_delivery_options());
  const Uuid stream = MessageId::mint().uuid();
  std::vector<TransportMessage> batch = stream_delivery(stream, {"a-0", "a-1", "a-2"});
  batch.push_back(this->delivery(1).front());  // "o-0", a stream of its own
  ASSERT_TRUE(worker.receive(batch).ok());
  EXPECT_EQ(this->handlings_["a-0"], 1);
  EXPECT_EQ(this->handlings_["a-1"], 1);
  EXPECT_EQ(this->handlings_.count("a-2"), 0u) << "held back behind a-1";
  EXPECT_EQ(this->handlings_["o-0"], 1);
  EXPECT_FALSE(this->has_inbox_row(batch[0].message_id));
  EXPECT_FALSE(this->has_inbox_row(batch[3].message_id));
  auto failed = whizbang::reader_of(*this->store_)->find_inbox_row(batch[1].message_id);
  ASSERT_TRUE(failed.ok() && failed->has_value());
  EXPECT_EQ((*failed)->state.attempts, 1);
  auto held = whizbang::reader_of(*this->store_)->find_inbox_row(batch[2].message_id);
  ASSERT_TRUE(held.ok() && held->has_value()) << "kept for after the retry, not lost";
  EXPECT_EQ((*held)->state.attempts, 0);
  EXPECT_FALSE((*held)->state.instance_id.has_value()) << "released";
  // Not offered before the failed one's retry is due; then both, in order.
  absl::StatusOr<InboxCycleResult> early = worker.run_once();
  ASSERT_TRUE(early.ok()) << early.status();
  EXPECT_EQ(this->handlings_.count("a-2"), 0u);
  this->clock_.advance(std::chrono::hours(1));
  absl::StatusOr<InboxCycleResult> retry = worker.run_once();
  ASSERT_TRUE(retry.ok()) << retry.status();
  EXPECT_EQ(this->handlings_["a-1"], 2);
  EXPECT_EQ(this->handlings_["a-2"], 1);
}

// A delivery whose stream has a row still waiting (stored earlier, not yet handled) is handled
// after it, never before; each exactly once.
TYPED_TEST(GroupCommitTests, DeliveredBehindAWaitingRowOfItsStream_HandledAfterIt) {
  std::vector<std::string> order;
  InboxHandler handler = [&](InboxHandling& handling) -> absl::Status {
    order.push_back(handling.envelope.payload.get_if<ShipOrderCommand>()->order_id);
    return absl::OkStatus();
  };
  InboxWorker worker(*this->store_, resolve, handler, this->on_delivery_options());
  const Uuid stream = MessageId::mint().uuid();
  const std::vector<TransportMessage> first = stream_delivery(stream, {"s-0"});
  const std::vector<TransportMessage> second = stream_delivery(stream, {"s-1"});
  const InboxMessage waiting = inbox_message(
      outbox_message(ShipOrderCommand{"s-0"}, "shipping", stream, first[0].message_id));
  ASSERT_TRUE(this->store_->store_inbox_messages({&waiting, 1}, MessageId::mint().uuid()).ok());
  ASSERT_TRUE(worker.receive(second).ok());
  ASSERT_TRUE(worker.run_once().ok());
  EXPECT_EQ(order, (std::vector<std::string>{"s-0", "s-1"}));
  EXPECT_EQ(this->waiting(first) + this->waiting(second), 0u);
}

// A delivered envelope that does not decode is dead-lettered with the reason, never dropped.
// Refused at the door (the envelope's id is not a UUID), kept once as a dead letter as it came;
// the rest of the batch is handled.
TYPED_TEST(GroupCommitTests, DeliveredBatch_UndecodableEnvelope_DeadLetteredNotLost) {
  InboxWorker worker(*this->store_, resolve, this->emitting_handler(), this->on_delivery_options());
  std::vector<TransportMessage> batch = this->delivery(2);
  batch[0].envelope_json = R"({"v":1,"id":"not a uuid"})";
  ASSERT_TRUE(worker.receive(batch).ok());
  EXPECT_EQ(this->handlings_.size(), 1u);
  auto letters = this->store_->dead_letters(10);
  ASSERT_TRUE(letters.ok() && letters->size() == 1u);
  EXPECT_EQ(letters->front().reason, FailureReason::ValidationError);
  EXPECT_NE(letters->front().error.find("not a UUID"), std::string::npos) << letters->front().error;
  auto dead = whizbang::reader_of(*this->store_)->find_inbox_row(letters->front().id);
  ASSERT_TRUE(dead.ok() && dead->has_value());
  EXPECT_EQ((*dead)->message.envelope_json, batch[0].envelope_json) << "kept as it came";
}

}  // namespace
}  // namespace store_test
