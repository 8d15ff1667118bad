// The record of keyed dispatches (OutboxStore::remember_dispatch; docs/guide/17-your-data.md,
// "Publish once") on every backend: the first time true, then false, undone with a rolled-back
// transaction, and purged by age.
#include <gtest/gtest.h>

#include "store_backends.hpp"

namespace store_test {
namespace {

template <class Backend>
class DispatchKeysTests : public BackendStoreTest<Backend> {};
TYPED_TEST_SUITE(DispatchKeysTests, Backends, BackendNames);

TYPED_TEST(DispatchKeysTests, FirstTimeTrue_ThenFalse_UntilPurgedByAge) {
  const whizbang::MessageId id = whizbang::MessageId::mint();
  EXPECT_TRUE(*this->store_->remember_dispatch(id));
  EXPECT_FALSE(*this->store_->remember_dispatch(id));
  auto purged = this->store_->purge(whizbang::RetentionOptions{});
  ASSERT_TRUE(purged.ok()) << purged.status();
  EXPECT_EQ(purged->dispatch_keys, 0);
  this->clock_.advance(std::chrono::hours(24 * 8));
  purged = this->store_->purge(whizbang::RetentionOptions{});
  ASSERT_TRUE(purged.ok()) << purged.status();
  EXPECT_EQ(purged->dispatch_keys, 1);
  EXPECT_TRUE(*this->store_->remember_dispatch(id)) << "a key past its retention is new";
}

TYPED_TEST(DispatchKeysTests, RecordedInATransactionThatRollsBack_IsNotRecorded) {
  const whizbang::MessageId id = whizbang::MessageId::mint();
  {
    whizbang::Transaction transaction(*this->store_);
    EXPECT_TRUE(*this->store_->remember_dispatch(id));
    ASSERT_TRUE(transaction.rollback().ok());
  }
  EXPECT_TRUE(*this->store_->remember_dispatch(id));
}

}  // namespace
}  // namespace store_test
