// DispatchModes values and the Route factories (the cascade page's "DispatchModes Flags Enum").
#include <gtest/gtest.h>

#include <array>
#include <list>
#include <tuple>
#include <vector>

#include "whizbang/message/route.hpp"

namespace whizbang {
namespace {

struct OrderCreated {
  int id = 0;
  bool operator==(const OrderCreated&) const = default;
};

using enum DispatchModes;

TEST(DispatchModeTests, ValuesMatchThePage) {
  EXPECT_EQ(static_cast<int>(None), 0);
  EXPECT_EQ(static_cast<int>(LocalDispatch), 1);
  EXPECT_EQ(static_cast<int>(Outbox), 2);
  EXPECT_EQ(static_cast<int>(EventStore), 4);
  EXPECT_EQ(static_cast<int>(Local), 5);
  EXPECT_EQ(static_cast<int>(LocalNoPersist), 1);
  EXPECT_EQ(static_cast<int>(Both), 3);
  EXPECT_EQ(static_cast<int>(EventStoreOnly), 4);
}

TEST(DispatchModeTests, NamedModesAreTheirFlagCompositions) {
  EXPECT_EQ(Local, LocalDispatch | EventStore);
  EXPECT_EQ(LocalNoPersist, LocalDispatch);
  EXPECT_EQ(Both, LocalDispatch | Outbox);
  EXPECT_EQ(EventStoreOnly, EventStore);
}

TEST(DispatchModeTests, HasFlagTruthTable) {
  EXPECT_TRUE(has_flag(Local, LocalDispatch));
  EXPECT_TRUE(has_flag(LocalNoPersist, LocalDispatch));
  EXPECT_TRUE(has_flag(Both, LocalDispatch));
  EXPECT_FALSE(has_flag(EventStoreOnly, LocalDispatch));
  EXPECT_FALSE(has_flag(Outbox, LocalDispatch));
  EXPECT_TRUE(has_flag(Local, EventStore));
  EXPECT_TRUE(has_flag(EventStoreOnly, EventStore));
  EXPECT_FALSE(has_flag(LocalNoPersist, EventStore));
  EXPECT_FALSE(has_flag(Both, EventStore));
  EXPECT_FALSE(has_flag(Outbox, EventStore));
  EXPECT_TRUE(has_flag(Both, Outbox));
  EXPECT_TRUE(has_flag(Outbox, Outbox));
  EXPECT_FALSE(has_flag(Local, Outbox));
  EXPECT_FALSE(has_flag(LocalNoPersist, Outbox));
  EXPECT_FALSE(has_flag(EventStoreOnly, Outbox));
  for (DispatchModes flag : {LocalDispatch, Outbox, EventStore}) EXPECT_FALSE(has_flag(None, flag));
}

TEST(RouteTests, Local_HasFlag_LocalDispatch) {
  EXPECT_TRUE(has_flag(Route::Local(OrderCreated{}).mode, LocalDispatch));
}
TEST(RouteTests, Local_HasFlag_EventStore) {
  const auto routed = Route::Local(OrderCreated{});
  EXPECT_TRUE(has_flag(routed.mode, EventStore));
  EXPECT_FALSE(has_flag(routed.mode, Outbox));
}
TEST(RouteTests, Both_HasFlag_Outbox) {
  const auto routed = Route::Both(OrderCreated{});
  EXPECT_TRUE(has_flag(routed.mode, Outbox));
  EXPECT_TRUE(has_flag(routed.mode, LocalDispatch));
  EXPECT_FALSE(has_flag(routed.mode, EventStore));
}
TEST(RouteTests, EventStoreOnly_HasFlag_EventStore) {
  const auto routed = Route::EventStoreOnly(OrderCreated{});
  EXPECT_TRUE(has_flag(routed.mode, EventStore));
  EXPECT_FALSE(has_flag(routed.mode, LocalDispatch));
  EXPECT_FALSE(has_flag(routed.mode, Outbox));
}
TEST(RouteTests, LocalNoPersist_HasOnlyLocalDispatch) {
  const auto routed = Route::LocalNoPersist(OrderCreated{});
  EXPECT_TRUE(has_flag(routed.mode, LocalDispatch));
  EXPECT_FALSE(has_flag(routed.mode, EventStore));
  EXPECT_FALSE(has_flag(routed.mode, Outbox));
}

TEST(RouteTests, Local_WithValue_ReturnsRoutedWithLocalMode) {
  const Routed<OrderCreated> routed = Route::Local(OrderCreated{7});
  EXPECT_EQ(routed.value, OrderCreated{7});
  EXPECT_EQ(routed.mode, Local);
}
TEST(RouteTests, LocalNoPersist_WithValue_ReturnsRoutedWithLocalNoPersistMode) {
  const Routed<OrderCreated> routed = Route::LocalNoPersist(OrderCreated{7});
  EXPECT_EQ(routed.value, OrderCreated{7});
  EXPECT_EQ(routed.mode, LocalNoPersist);
}
TEST(RouteTests, EventStoreOnly_WithValue_ReturnsRoutedWithEventStoreOnlyMode) {
  const Routed<OrderCreated> routed = Route::EventStoreOnly(OrderCreated{7});
  EXPECT_EQ(routed.value, OrderCreated{7});
  EXPECT_EQ(routed.mode, EventStoreOnly);
}
TEST(RouteTests, Outbox_WithValue_ReturnsRoutedWithOutboxMode) {
  const Routed<OrderCreated> routed = Route::Outbox(OrderCreated{7});
  EXPECT_EQ(routed.value, OrderCreated{7});
  EXPECT_EQ(routed.mode, Outbox);
}
TEST(RouteTests, Both_WithValue_ReturnsRoutedWithBothMode) {
  const Routed<OrderCreated> routed = Route::Both(OrderCreated{7});
  EXPECT_EQ(routed.value, OrderCreated{7});
  EXPECT_EQ(routed.mode, Both);
}
TEST(RouteTests, None_ReturnsRoutedNone) {
  constexpr auto none = Route::None();
  static_assert(std::is_same_v<decltype(none), const RoutedNone>);
  EXPECT_EQ(none.mode, None);
}

TEST(RouteTests, WithArray_WrapsTheWholeArrayWithTheMode) {
  const std::vector<OrderCreated> events{{1}, {2}};
  const auto routed = Route::Outbox(events);
  EXPECT_EQ(routed.value, events);
  EXPECT_EQ(routed.mode, Outbox);
  EXPECT_EQ(Route::LocalNoPersist(events).value.size(), 2u);  // one collection wrapper
}

TEST(RouteTests, LocalNoPersistEach_WithCollection_WrapsEveryItemInOrder) {
  const std::list<OrderCreated> events{{1}, {2}, {3}};
  const auto routed = Route::LocalNoPersistEach(events);
  ASSERT_EQ(routed.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(routed[i].value.id, i + 1);
    EXPECT_EQ(routed[i].mode, LocalNoPersist);
  }
}

TEST(RouteTests, EventStoreOnlyEach_WithCollection_WrapsEveryItemInOrder) {
  const std::array<OrderCreated, 3> events{{{1}, {2}, {3}}};
  const auto routed = Route::EventStoreOnlyEach(events);
  ASSERT_EQ(routed.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(routed[i].value.id, i + 1);
    EXPECT_EQ(routed[i].mode, EventStoreOnly);
  }
}

TEST(RouteTests, DefaultRouted_HasModeNone) {
  const Routed<OrderCreated> routed;
  EXPECT_EQ(routed.mode, None);
}

TEST(RouteTests, SuccessFailureTuple_HoldsTheValuesAsGiven) {
  const auto result = std::tuple{OrderCreated{1}, Route::None()};
  EXPECT_EQ(std::get<0>(result).id, 1);
  EXPECT_EQ(std::get<1>(result).mode, None);
  const auto mirrored = std::tuple{Route::None(), Route::Local(OrderCreated{2})};
  EXPECT_EQ(std::get<1>(mirrored).mode, Local);
}

TEST(RouteTests, ToString_NamesEachValue) {
  EXPECT_EQ(to_string(Local), "Local");
  EXPECT_EQ(to_string(Both), "Both");
  EXPECT_EQ(to_string(LocalNoPersist), "LocalNoPersist");
  EXPECT_EQ(to_string(EventStoreOnly), "EventStoreOnly");
  EXPECT_EQ(to_string(Outbox), "Outbox");
  EXPECT_EQ(to_string(None), "None");
}

}  // namespace
}  // namespace whizbang
