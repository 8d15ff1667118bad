// A handling that fails on a transient database error (Unavailable: SQLite busy past its
// timeout, a PostgreSQL serialization failure or deadlock, a dropped connection) is handled again
// without counting an attempt, up to InboxWorkerOptions::max_transient_retries in a row; an
// ordinary failure counts at once (docs/guide/17-your-data.md). Before, each transient error
// was an attempt, and contention could dead-letter a good message.
#include <gtest/gtest.h>

#include "store_backends.hpp"
#include "whizbang/store/store_reader.hpp"
#include "whizbang/workers/inbox_worker.hpp"

namespace store_test {
namespace {

template <class Backend>
class TransientFailureTests : public BackendStoreTest<Backend> {
 protected:
  void make_worker(std::function<absl::Status()> outcome, int max_transient_retries = 10) {
    whizbang::InboxWorkerOptions options;
    options.max_transient_retries = max_transient_retries;
    worker_ = std::make_unique<whizbang::InboxWorker>(
        *this->store_, resolve,
        [this, outcome = std::move(outcome)](whizbang::InboxHandling&) {
          ++calls_;
          return outcome();
        },
        options);
    ASSERT_TRUE(worker_->receive({&message_, 1}).ok());
  }
  whizbang::InboxCycleResult cycle() {
    auto result = worker_->run_once();
    EXPECT_TRUE(result.ok()) << result.status();
    return result.ok() ? *result : whizbang::InboxCycleResult{};
  }
  int attempts() {
    auto row = whizbang::reader_of(*this->store_)->find_inbox_row(message_.message_id);
    EXPECT_TRUE(row.ok() && row->has_value());
    return row.ok() && row->has_value() ? (*row)->state.attempts : -1;
  }

  const whizbang::TransportMessage message_ =
      transport_message(outbox_message(OrderCreated{"o-1", 1}, "orders"));
  int calls_ = 0;
  std::unique_ptr<whizbang::InboxWorker> worker_;
};

TYPED_TEST_SUITE(TransientFailureTests, Backends, BackendNames);

TYPED_TEST(TransientFailureTests, TransientError_HandledAgain_NoAttemptCounted) {
  this->make_worker([this] {
    return this->calls_ <= 3 ? absl::UnavailableError("could not serialize access [40001]")
                             : absl::OkStatus();
  });
  for (int run = 0; run < 3; ++run) {
    const whizbang::InboxCycleResult result = this->cycle();
    EXPECT_EQ(result.retried, 1u);
    EXPECT_EQ(result.failed, 0u);
    EXPECT_EQ(this->attempts(), 0);
  }
  EXPECT_EQ(this->cycle().handled, 1u) << "claimed again at once: no backoff to wait out";
  EXPECT_EQ(this->calls_, 4);
}

// What a receptor's `sql.execute(...).value()` throws keeps its code: still transient.
TYPED_TEST(TransientFailureTests, StatusOrValueThrown_KeepsItsCode) {
  this->make_worker([this]() -> absl::Status {
    if (this->calls_ == 1) {
      (void)absl::StatusOr<int>(absl::UnavailableError("deadlock detected [40P01]")).value();
    }
    return absl::OkStatus();
  });
  EXPECT_EQ(this->cycle().retried, 1u);
  EXPECT_EQ(this->cycle().handled, 1u);
}

TYPED_TEST(TransientFailureTests, TransientForever_CountsAfterItsRetries) {
  this->make_worker([] { return absl::UnavailableError("the server went away"); },
                    /*max_transient_retries=*/2);
  EXPECT_EQ(this->cycle().retried, 1u);
  EXPECT_EQ(this->cycle().retried, 1u);
  const whizbang::InboxCycleResult counted = this->cycle();
  EXPECT_EQ(counted.failed, 1u);
  EXPECT_EQ(this->attempts(), 1);
}

TYPED_TEST(TransientFailureTests, OrdinaryFailure_CountsAtOnce) {
  this->make_worker([] { return absl::InternalError("CHECK constraint failed"); });
  EXPECT_EQ(this->cycle().failed, 1u);
  EXPECT_EQ(this->attempts(), 1);
}

}  // namespace
}  // namespace store_test
