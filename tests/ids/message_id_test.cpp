// MessageId: UUIDv7 minting, parsing, formatting and validation.
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "whizbang/ids/message_id.hpp"

namespace whizbang {
namespace {

TEST(MessageIdTests, Mint_IsVersion7WithRfcVariantAndCurrentTimestamp) {
  const auto before = std::chrono::system_clock::now();
  const MessageId id = MessageId::mint();
  const auto after = std::chrono::system_clock::now();
  EXPECT_TRUE(is_v7(id.uuid()));
  EXPECT_GE(id.timestamp(), std::chrono::floor<std::chrono::milliseconds>(before));
  EXPECT_LE(id.timestamp(), after + std::chrono::milliseconds(1));
}

TEST(MessageIdTests, Mint_MillionIdsInATightLoop_AreStrictlyIncreasingAndUnique) {
  constexpr int kCount = 1'000'000;
  std::vector<MessageId> ids;
  ids.reserve(kCount);
  for (int i = 0; i < kCount; ++i) ids.push_back(MessageId::mint());
  for (int i = 1; i < kCount; ++i) {
    ASSERT_LT(ids[i - 1], ids[i]) << "at " << i << ": " << ids[i - 1].to_string() << " then "
                                  << ids[i].to_string();
  }
}

TEST(MessageIdTests, Mint_FourThreadsConcurrently_ProduceNoDuplicates) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 200'000;
  std::vector<std::vector<MessageId>> per_thread(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      per_thread[t].reserve(kPerThread);
      for (int i = 0; i < kPerThread; ++i) per_thread[t].push_back(MessageId::mint());
    });
  }
  for (auto& thread : threads) thread.join();
  absl::flat_hash_set<MessageId> all;
  for (const auto& ids : per_thread) {
    // The shared clock also keeps each thread's own ids in minting order.
    EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
    for (const auto& id : ids) ASSERT_TRUE(all.insert(id).second) << id.to_string();
  }
  EXPECT_EQ(all.size(), static_cast<std::size_t>(kThreads * kPerThread));
}

TEST(MessageIdTests, Format_HyphenatedLowercaseAndNForm) {
  const auto id = MessageId::parse("0190F3C4-1A2B-7C3D-8E4F-A1B2C3D4E5F6");
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(id->to_string(), "0190f3c4-1a2b-7c3d-8e4f-a1b2c3d4e5f6");
  EXPECT_EQ(id->to_n_string(), "0190f3c41a2b7c3d8e4fa1b2c3d4e5f6");
  const auto from_n = MessageId::parse("0190f3c41a2b7c3d8e4fa1b2c3d4e5f6");
  ASSERT_TRUE(from_n.ok());
  EXPECT_EQ(*from_n, *id);
}

TEST(MessageIdTests, Parse_RoundTripsMintedIds) {
  for (int i = 0; i < 100; ++i) {
    const MessageId id = MessageId::mint();
    EXPECT_EQ(*MessageId::parse(id.to_string()), id);
  }
}

TEST(MessageIdTests, Parse_MalformedText_IsAClearError) {
  for (std::string_view bad :
       {"", "xyz", "0190f3c4-1a2b-7c3d-8e4f-a1b2c3d4e5f", "0190f3c4x1a2b-7c3d-8e4f-a1b2c3d4e5f6",
        "0190f3c4-1a2b-7c3d-8e4f-a1b2c3d4e5fg"}) {
    const auto id = MessageId::parse(bad);
    ASSERT_FALSE(id.ok()) << bad;
    EXPECT_NE(id.status().message().find("malformed uuid"), std::string_view::npos);
  }
}

TEST(MessageIdTests, From_NonV7Id_IsRejectedWithAClearError) {
  const auto v4 = *Uuid::parse("3f2504e0-4f89-41d3-9a0c-0305e82c3301");
  const auto id = MessageId::from(v4);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(id.status().message().find("not a version 7"), std::string_view::npos);
  // A v7 version nibble with the wrong variant is rejected too.
  EXPECT_FALSE(MessageId::from(*Uuid::parse("0190f3c4-1a2b-7c3d-4e4f-a1b2c3d4e5f6")).ok());
}

TEST(MessageIdTests, TimestampAndCounter_AreExtractedFromTheirBits) {
  const auto id = *MessageId::parse("0190f3c4-1a2b-7c3d-8e4f-a1b2c3d4e5f6");
  EXPECT_EQ(id.unix_millis(), 0x0190f3c41a2b);
  EXPECT_EQ(id.counter(), (0xc3du << 14) | 0x0e4fu);
}

TEST(MessageIdTests, DefaultConstructed_IsNil) {
  EXPECT_TRUE(MessageId().is_nil());
  EXPECT_FALSE(MessageId::mint().is_nil());
}

}  // namespace
}  // namespace whizbang
