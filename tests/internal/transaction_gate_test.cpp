// TransactionGate's savepoints, against a backend that records what it was asked to do: which
// statement each step sends, and whose doom a failing call sets (the savepoint's, not the
// transaction's).
#include "store/transaction_gate.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using whizbang::store_internal::TransactionBackend;
using whizbang::store_internal::TransactionGate;

class RecordingBackend final : public TransactionBackend {
 public:
  absl::Status backend_begin(bool) override { return record("BEGIN"); }
  absl::Status backend_commit() override { return record("COMMIT"); }
  void backend_rollback() override { (void)record("ROLLBACK"); }
  absl::Status backend_savepoint(int level) override {
    return record("SAVEPOINT " + std::to_string(level));
  }
  absl::Status backend_release(int level) override {
    return record("RELEASE " + std::to_string(level));
  }
  absl::Status backend_rollback_to(int level) override {
    if (fail_rollback_to) return absl::InternalError("no such savepoint");
    return record("ROLLBACK TO " + std::to_string(level));
  }

  std::vector<std::string> steps;
  bool fail_rollback_to = false;

 private:
  absl::Status record(std::string step) {
    steps.push_back(std::move(step));
    return absl::OkStatus();
  }
};

absl::Status failing_call() { return absl::UnavailableError("the call failed"); }

class TransactionGateTests : public ::testing::Test {
 protected:
  RecordingBackend backend_;
  TransactionGate gate_{backend_, nullptr};
};

TEST_F(TransactionGateTests, FailedCallInsideASavepoint_DoomsTheSavepointNotTheTransaction) {
  ASSERT_TRUE(gate_.begin().ok());
  ASSERT_TRUE(gate_.savepoint().ok());
  EXPECT_FALSE(gate_.run(failing_call).ok());
  EXPECT_EQ(gate_.end_savepoint(/*keep=*/true).code(), absl::StatusCode::kAborted);
  EXPECT_TRUE(gate_.commit().ok());
  EXPECT_EQ(backend_.steps,
            (std::vector<std::string>{"BEGIN", "SAVEPOINT 0", "ROLLBACK TO 0", "COMMIT"}));
}

TEST_F(TransactionGateTests, FailedCallBeforeTheSavepoint_StillDoomsTheTransaction) {
  ASSERT_TRUE(gate_.begin().ok());
  EXPECT_FALSE(gate_.run(failing_call).ok());
  ASSERT_TRUE(gate_.savepoint().ok());
  ASSERT_TRUE(gate_.end_savepoint(/*keep=*/false).ok());
  EXPECT_EQ(gate_.commit().code(), absl::StatusCode::kAborted);
  EXPECT_EQ(backend_.steps.back(), "ROLLBACK");
}

TEST_F(TransactionGateTests, NestedSavepoints_NumberedByLevel) {
  ASSERT_TRUE(gate_.begin().ok());
  ASSERT_TRUE(gate_.savepoint().ok());
  ASSERT_TRUE(gate_.savepoint().ok());
  ASSERT_TRUE(gate_.end_savepoint(/*keep=*/false).ok());
  ASSERT_TRUE(gate_.end_savepoint(/*keep=*/true).ok());
  ASSERT_TRUE(gate_.commit().ok());
  EXPECT_EQ(backend_.steps, (std::vector<std::string>{"BEGIN", "SAVEPOINT 0", "SAVEPOINT 1",
                                                      "ROLLBACK TO 1", "RELEASE 0", "COMMIT"}));
}

TEST_F(TransactionGateTests, SavepointLeftOpenAcrossANestedBegin_IsRefused) {
  ASSERT_TRUE(gate_.begin().ok());
  ASSERT_TRUE(gate_.savepoint().ok());
  ASSERT_TRUE(gate_.begin().ok());  // joins; not yet left
  EXPECT_EQ(gate_.end_savepoint(/*keep=*/true).code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(gate_.commit().ok());  // leaves the nested level
  EXPECT_TRUE(gate_.end_savepoint(/*keep=*/true).ok());
  EXPECT_TRUE(gate_.commit().ok());
}

TEST_F(TransactionGateTests, RollbackRefusedAcrossANestedBegin_DoomsTheTransaction) {
  ASSERT_TRUE(gate_.begin().ok());
  ASSERT_TRUE(gate_.savepoint().ok());
  ASSERT_TRUE(gate_.begin().ok());  // joins; not yet left
  EXPECT_EQ(gate_.end_savepoint(/*keep=*/false).code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(gate_.commit().ok());  // leaves the nested level
  EXPECT_EQ(gate_.commit().code(), absl::StatusCode::kAborted)
      << "the writes the refused rollback would have undone must not commit";
  EXPECT_EQ(backend_.steps.back(), "ROLLBACK");
}

TEST_F(TransactionGateTests, RollbackToThatFails_DoomsTheTransaction) {
  ASSERT_TRUE(gate_.begin().ok());
  ASSERT_TRUE(gate_.savepoint().ok());
  backend_.fail_rollback_to = true;
  EXPECT_FALSE(gate_.end_savepoint(/*keep=*/false).ok());
  EXPECT_EQ(gate_.commit().code(), absl::StatusCode::kAborted) << "its state is unknown";
  EXPECT_EQ(backend_.steps.back(), "ROLLBACK");
}

TEST_F(TransactionGateTests, CommitWithASavepointOpen_EndsIt) {
  ASSERT_TRUE(gate_.begin().ok());
  ASSERT_TRUE(gate_.savepoint().ok());
  ASSERT_TRUE(gate_.commit().ok());
  ASSERT_TRUE(gate_.begin().ok());
  EXPECT_EQ(gate_.end_savepoint(/*keep=*/true).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(gate_.commit().ok());
}

}  // namespace
