// The registry's small parts that generated code calls: ReceptorSet, PerspectiveInfo::handles,
// internal::find_response (RPC extraction) and internal::call_apply.
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "whizbang/registry/find_response.hpp"
#include "whizbang/registry/receptor_info.hpp"
#include "whizbang/registry/receptor_set.hpp"

namespace whizbang {
namespace {

using internal::find_response;
using internal::type_key;

struct OrderTotal {
  int cents = 0;
};
struct OrderShipped {
  std::string order_id;
};

// ---- ReceptorSet ------------------------------------------------------------------------------

TEST(ReceptorSetTests, Get_ReturnsTheInstanceAtItsIndex) {
  auto first = std::make_shared<int>(1);
  auto second = std::make_shared<int>(2);
  const ReceptorSet set(std::vector<std::shared_ptr<void>>{first, second});
  EXPECT_EQ(set.size(), 2u);
  EXPECT_EQ(set.get(0), first.get());
  EXPECT_EQ(set.get(1), second.get());
}

TEST(ReceptorSetTests, IndexPastTheEnd_IsNullptr) {
  const ReceptorSet set(std::vector<std::shared_ptr<void>>{std::make_shared<int>(1)});
  EXPECT_EQ(set.get(1), nullptr);
  EXPECT_EQ(set.get(1000), nullptr);
  const ReceptorSet empty;
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.get(0), nullptr);
}

TEST(ReceptorSetTests, Set_KeepsItsInstancesAlive) {
  auto instance = std::make_shared<int>(5);
  const ReceptorSet set(std::vector<std::shared_ptr<void>>{instance});
  const std::weak_ptr<int> watch = instance;
  instance.reset();
  EXPECT_FALSE(watch.expired());
  EXPECT_EQ(*static_cast<int*>(set.get(0)), 5);
}

// ---- PerspectiveInfo::handles -----------------------------------------------------------------

MessageTypeInfo type_named(std::string_view wire_name) {
  MessageTypeInfo info;
  info.wire_name = wire_name;
  return info;
}

TEST(PerspectiveInfoTests, Handles_OnlyTheEventTypesItApplies) {
  const MessageTypeInfo kCreated = type_named("shop::OrderCreated");
  const MessageTypeInfo kShipped = type_named("shop::OrderShipped");
  const MessageTypeInfo kLookalike = type_named("shop::OrderCreated");
  const std::array<const MessageTypeInfo*, 2> kEvents{&kCreated, &kShipped};
  PerspectiveInfo perspective;
  perspective.name = "shop::OrderSummary";
  perspective.events = kEvents;
  EXPECT_TRUE(perspective.handles(kCreated));
  EXPECT_TRUE(perspective.handles(kShipped));
  // A type is its MessageTypeInfo's address, not its wire name.
  EXPECT_FALSE(perspective.handles(kLookalike));
  EXPECT_FALSE(PerspectiveInfo{}.handles(kCreated));
}

// ---- internal::find_response ------------------------------------------------------------------

TEST(FindResponseTests, ValueOfTheWantedType_IsItself) {
  const OrderTotal total{1200};
  EXPECT_EQ(find_response(total, type_key<OrderTotal>()), &total);
  EXPECT_EQ(find_response(total, type_key<OrderShipped>()), nullptr);
}

TEST(FindResponseTests, Tuple_FirstMatchLeftToRight) {
  const std::tuple<OrderShipped, OrderTotal, OrderTotal> result{{"o-1"}, {1}, {2}};
  EXPECT_EQ(find_response(result, type_key<OrderTotal>()), &std::get<1>(result));
  EXPECT_EQ(find_response(result, type_key<OrderShipped>()), &std::get<0>(result));
  const std::pair<OrderShipped, OrderTotal> pair{{"o-2"}, {3}};
  EXPECT_EQ(find_response(pair, type_key<OrderTotal>()), &pair.second);
}

TEST(FindResponseTests, NestedValues_AreSearchedDepthFirst) {
  // The total inside the first element is found before the one beside it.
  const std::tuple<std::tuple<OrderShipped, OrderTotal>, OrderTotal> result{{{"o-1"}, {1}}, {2}};
  EXPECT_EQ(find_response(result, type_key<OrderTotal>()), &std::get<1>(std::get<0>(result)));
}

TEST(FindResponseTests, Routed_IsLookedIntoUnlessItsModeIsNone) {
  const Routed<OrderTotal> outbox{{5}, DispatchModes::Outbox};
  EXPECT_EQ(find_response(outbox, type_key<OrderTotal>()), &outbox.value);
  const Routed<OrderTotal> none{{5}, DispatchModes::None};
  EXPECT_EQ(find_response(none, type_key<OrderTotal>()), nullptr);
  const std::tuple<OrderShipped, RoutedNone> failed{{"o-1"}, {}};
  EXPECT_EQ(find_response(failed, type_key<OrderShipped>()), &std::get<0>(failed));
  EXPECT_EQ(find_response(failed, type_key<OrderTotal>()), nullptr);
}

TEST(FindResponseTests, Optional_OnlyWhenEngaged) {
  const std::optional<OrderTotal> engaged = OrderTotal{9};
  EXPECT_EQ(find_response(engaged, type_key<OrderTotal>()), &*engaged);
  const std::optional<OrderTotal> empty;
  EXPECT_EQ(find_response(empty, type_key<OrderTotal>()), nullptr);
}

TEST(FindResponseTests, Vector_FirstMatchingElement) {
  const std::vector<OrderTotal> totals{{1}, {2}};
  EXPECT_EQ(find_response(totals, type_key<OrderTotal>()), &totals[0]);
  const std::vector<OrderTotal> none;
  EXPECT_EQ(find_response(none, type_key<OrderTotal>()), nullptr);
  const std::vector<std::optional<OrderTotal>> sparse{std::nullopt, OrderTotal{4}};
  EXPECT_EQ(find_response(sparse, type_key<OrderTotal>()), &*sparse[1]);
}

TEST(FindResponseTests, WholeContainer_MatchesBeforeItsElements) {
  const std::vector<OrderTotal> totals{{1}};
  EXPECT_EQ(find_response(totals, type_key<std::vector<OrderTotal>>()), &totals);
}

// ---- internal::call_apply ---------------------------------------------------------------------

TEST(CallApplyTests, VoidApply_IsOkAndRuns) {
  int applied = 0;
  EXPECT_TRUE(internal::call_apply([&] { ++applied; }).ok());
  EXPECT_EQ(applied, 1);
}

TEST(CallApplyTests, StatusApply_IsPassedOn) {
  EXPECT_TRUE(internal::call_apply([] { return absl::OkStatus(); }).ok());
  const absl::Status failed = internal::call_apply([] { return absl::InvalidArgumentError("no"); });
  EXPECT_EQ(failed.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(failed.message(), "no");
}

}  // namespace
}  // namespace whizbang
