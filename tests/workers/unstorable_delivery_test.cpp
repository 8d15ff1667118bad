// A delivered message the store keeps refusing must not send its whole batch back forever: the
// batch is stored message by message, the good ones are taken at once, and the one that keeps
// failing is refused after InboxWorkerOptions::max_store_tries (docs/guide/16-security.md). A
// store that is down (Unavailable) refuses nothing: the batch waits for it, and the worker's
// delivery health says since when. Before, any store error on one message requeued its batch,
// and every message behind it, forever.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "faults/hooked_store.hpp"
#include "store_backends.hpp"
#include "support/dead_lettering_transport.hpp"
#include "whizbang/observability/metrics.hpp"
#include "whizbang/store/store_reader.hpp"
#include "whizbang/workers/inbox_worker.hpp"

namespace store_test {
namespace {

using whizbang::DeliveryOutcome;
using whizbang::MessageId;
using whizbang::TransportMessage;

template <class Backend>
class UnstorableDeliveryTests : public BackendStoreTest<Backend> {
 protected:
  void SetUp() override {
    BackendStoreTest<Backend>::SetUp();
    auto hooked = std::make_unique<faults::HookedStore>(std::move(this->store_));
    hooks_ = hooked.get();
    this->store_ = std::move(hooked);
    // The store refuses any write that holds the poisoned message, as PostgreSQL refused an
    // invalid byte: not Unavailable, so it is the message, not the store.
    hooks_->before_store_inbox = [this](std::span<const whizbang::InboxMessage> rows) {
      if (store_down_) return absl::UnavailableError("the store is down");
      if (store_full_) return absl::ResourceExhaustedError("database or disk is full");
      const bool poisoned = std::any_of(rows.begin(), rows.end(), [&](const auto& row) {
        return row.message_id == poison_.message_id;
      });
      return poisoned ? absl::InvalidArgumentError("invalid byte sequence for encoding UTF8")
                      : absl::OkStatus();
    };
  }
  void make_worker(bool with_transport_dead_letters, bool handle_on_delivery = false) {
    whizbang::InboxWorkerOptions options;
    options.metrics = metrics_;
    options.handle_on_delivery = handle_on_delivery;
    worker_ = std::make_unique<whizbang::InboxWorker>(
        *this->store_, resolve, [](whizbang::InboxHandling&) { return absl::OkStatus(); }, options);
    if (with_transport_dead_letters) subscription_ = *worker_->subscribe(transport_);
  }
  DeliveryOutcome deliver(const std::vector<TransportMessage>& batch) {
    return subscription_ ? transport_.deliver(batch) : worker_->receive(batch);
  }
  bool stored(const MessageId& id) {
    auto row = whizbang::reader_of(hooks_->inner())->find_inbox_row(id);
    EXPECT_TRUE(row.ok()) << row.status();
    return row.ok() && row->has_value();
  }
  std::int64_t counted(std::string_view name) {
    return metrics_->counter(whizbang::metric_names::kWorkCoordinatorMeter, name);
  }

  faults::HookedStore* hooks_ = nullptr;
  bool store_down_ = false;
  bool store_full_ = false;
  const TransportMessage poison_ = delivered_order("o-poison");
  std::shared_ptr<whizbang::InMemoryMetrics> metrics_ =
      std::make_shared<whizbang::InMemoryMetrics>();
  whizbang_test::DeadLetteringTransport transport_;
  std::unique_ptr<whizbang::InboxWorker> worker_;
  std::unique_ptr<whizbang::TransportSubscription> subscription_;
};

TYPED_TEST_SUITE(UnstorableDeliveryTests, Backends, BackendNames);

TYPED_TEST(UnstorableDeliveryTests, OneMessageTheStoreKeepsRefusing_RefusedAfterItsTries) {
  this->make_worker(/*with_transport_dead_letters=*/true);
  const TransportMessage before = delivered_order("o-1");
  const TransportMessage after = delivered_order("o-2");
  const std::vector<TransportMessage> batch{before, this->poison_, after};

  DeliveryOutcome outcome = this->deliver(batch);
  EXPECT_FALSE(outcome.ok()) << "the poisoned message is offered again";
  EXPECT_TRUE(this->stored(before.message_id)) << "the others are not held up";
  EXPECT_TRUE(this->stored(after.message_id));
  EXPECT_TRUE(this->worker_->delivery_health().failing_since.has_value());

  EXPECT_FALSE(this->deliver(batch).ok());
  outcome = this->deliver(batch);  // its third try
  ASSERT_TRUE(outcome.ok()) << outcome.status;
  ASSERT_EQ(outcome.refused.size(), 1u);
  EXPECT_EQ(outcome.refused[0].index, 1u);
  EXPECT_NE(outcome.refused[0].reason.find("the store refused it 3 times"), std::string::npos)
      << outcome.refused[0].reason;
  EXPECT_NE(outcome.refused[0].reason.find("invalid byte sequence"), std::string::npos);
  EXPECT_FALSE(this->worker_->delivery_health().failing_since.has_value());
  EXPECT_EQ(this->counted(whizbang::metric_names::kInboxDeliveryStoreFailed), 2);
  EXPECT_EQ(this->metrics_->counter(whizbang::metric_names::kWorkCoordinatorMeter,
                                    whizbang::metric_names::kInboxDeliveryRefused,
                                    {{whizbang::metric_names::kReasonTag, "unstorable"}}),
            1);
}

// Handled on delivery (the store takes a batch and handles it in one transaction): the same.
TYPED_TEST(UnstorableDeliveryTests, HandledOnDelivery_TheOthersStillTaken) {
  this->make_worker(/*with_transport_dead_letters=*/true, /*handle_on_delivery=*/true);
  const TransportMessage good = delivered_order("o-1");
  const std::vector<TransportMessage> batch{this->poison_, good};
  for (int attempt = 0; attempt < 2; ++attempt) EXPECT_FALSE(this->deliver(batch).ok());
  EXPECT_TRUE(this->stored(good.message_id));
  const DeliveryOutcome outcome = this->deliver(batch);
  ASSERT_TRUE(outcome.ok()) << outcome.status;
  ASSERT_EQ(outcome.refused.size(), 1u);
  EXPECT_EQ(outcome.refused[0].index, 0u);
}

// Without transport dead letters the unstorable message is kept as a dead letter of the store,
// under an id of its content (the store takes that row: it is not the poisoned one).
TYPED_TEST(UnstorableDeliveryTests, WithoutTransportDeadLetters_KeptAsADeadLetter) {
  this->make_worker(/*with_transport_dead_letters=*/false);
  for (int attempt = 0; attempt < 2; ++attempt) EXPECT_FALSE(this->deliver({this->poison_}).ok());
  ASSERT_TRUE(this->deliver({this->poison_}).ok());
  auto letters = this->hooks_->inner().dead_letters(10);
  ASSERT_TRUE(letters.ok() && letters->size() == 1u);
  EXPECT_NE(letters->front().error.find("the store refused it 3 times"), std::string::npos);
}

// A store that is down is not a message that is bad: the batch comes back whole, as often as it
// takes, and nothing is refused.
TYPED_TEST(UnstorableDeliveryTests, StoreDown_TheBatchWaitsWhole_NothingRefused) {
  this->make_worker(/*with_transport_dead_letters=*/true);
  const TransportMessage message = delivered_order("o-1");
  this->store_down_ = true;
  for (int attempt = 0; attempt < 10; ++attempt) {
    const DeliveryOutcome outcome = this->deliver({message});
    EXPECT_TRUE(absl::IsUnavailable(outcome.status)) << outcome.status;
    EXPECT_TRUE(outcome.refused.empty());
  }
  whizbang::DeliveryHealth health = this->worker_->delivery_health();
  ASSERT_TRUE(health.failing_since.has_value());
  EXPECT_EQ(health.failed_batches, 10u);
  EXPECT_NE(health.last_error.find("the store is down"), std::string::npos);

  this->store_down_ = false;
  ASSERT_TRUE(this->deliver({message}).ok());
  EXPECT_TRUE(this->stored(message.message_id));
  EXPECT_FALSE(this->worker_->delivery_health().failing_since.has_value());
}

// A full disk fails every message alike: it is the store's condition, and no message is blamed
// (each would otherwise be refused after its tries, and the queue emptied into its dead letters).
TYPED_TEST(UnstorableDeliveryTests, StoreFull_NoMessageBlamed) {
  this->make_worker(/*with_transport_dead_letters=*/true);
  const TransportMessage message = delivered_order("o-1");
  this->store_full_ = true;
  for (int attempt = 0; attempt < 2 * whizbang::InboxWorkerOptions{}.max_store_tries; ++attempt) {
    const DeliveryOutcome outcome = this->deliver({message, delivered_order("o-2")});
    EXPECT_TRUE(absl::IsResourceExhausted(outcome.status)) << outcome.status;
    EXPECT_TRUE(outcome.refused.empty());
  }
  this->store_full_ = false;
  ASSERT_TRUE(this->deliver({message}).ok());
  EXPECT_TRUE(this->stored(message.message_id));
}

}  // namespace
}  // namespace store_test
