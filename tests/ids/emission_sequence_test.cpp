#include <gtest/gtest.h>

#include <memory>

#include "whizbang/ids/emission_sequence.hpp"

namespace whizbang {
namespace {

TEST(EmissionSequenceTests, Next_HandsOutZeroOneTwo) {
  EmissionSequence seq;
  EXPECT_EQ(seq.next(), 0);
  EXPECT_EQ(seq.next(), 1);
  EXPECT_EQ(seq.next(), 2);
  EXPECT_EQ(seq.peek(), 3);
}

TEST(EmissionSequenceTests, FreshSequenceForARetry_RestartsAtZero) {
  // A retry materializes a fresh envelope and with it a fresh sequence.
  auto first_run = std::make_unique<EmissionSequence>();
  first_run->next();
  first_run->next();
  first_run.reset();  // nothing outlives the envelope
  EmissionSequence retry;
  EXPECT_EQ(retry.next(), 0);
}

}  // namespace
}  // namespace whizbang
