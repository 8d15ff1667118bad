// A handling that fails on a transient database error (Unavailable: SQLite busy past its
// timeout, a PostgreSQL serialization failure or deadlock, a dropped connection) is handled again
// without counting an attempt, up to InboxWorkerOptions::max_transient_retries in a row; an
// ordinary failure counts at once (docs/guide/17-your-data.md). Before, each transient error
// was an attempt, and contention could dead-letter a good message.
#include <gtest/gtest.h>

#include "one_message_inbox_fixture.hpp"

namespace store_test {
namespace {

template <class Backend>
class TransientFailureTests : public OneMessageInboxTest<Backend> {
 protected:
  void make_worker(std::function<absl::Status()> outcome, int max_transient_retries = 10) {
    whizbang::InboxWorkerOptions options;
    options.max_transient_retries = max_transient_retries;
    OneMessageInboxTest<Backend>::make_worker(std::move(options), std::move(outcome));
  }
  int attempts() {
    const std::optional<whizbang::InboxRow> row = this->row();
    EXPECT_TRUE(row.has_value());
    return row ? row->state.attempts : -1;
  }
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
