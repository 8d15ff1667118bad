// ServiceRegistry: the typed, non-owning services receptors are constructed with.
#include "whizbang/registry/service_registry.hpp"

#include <gtest/gtest.h>

#include <string>

namespace whizbang {
namespace {

struct Mailer {
  std::string from;
};
struct WallClock {
  int now = 0;
};
struct Base {
  int value = 0;
};
struct Derived : Base {};

TEST(ServiceRegistryTests, AddedService_IsFoundByItsType) {
  Mailer mailer{"shop@example.com"};
  ServiceRegistry services;
  services.add<Mailer>(mailer);
  Mailer* found = services.find<Mailer>();
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found, &mailer);
  EXPECT_EQ(found->from, "shop@example.com");
}

TEST(ServiceRegistryTests, ConstRegistry_FindsTheSameService) {
  Mailer mailer;
  ServiceRegistry services;
  services.add(mailer);
  const ServiceRegistry& view = services;
  EXPECT_EQ(view.find<Mailer>(), &mailer);
  EXPECT_EQ(view.find<const Mailer>(), &mailer);
}

TEST(ServiceRegistryTests, FoundService_IsTheLiveObjectNotACopy) {
  WallClock clock{1};
  ServiceRegistry services;
  services.add(clock);
  services.find<WallClock>()->now = 42;
  EXPECT_EQ(clock.now, 42);
}

TEST(ServiceRegistryTests, MissingType_IsNullptr) {
  Mailer mailer;
  ServiceRegistry services;
  EXPECT_EQ(services.find<Mailer>(), nullptr);
  services.add(mailer);
  EXPECT_EQ(services.find<WallClock>(), nullptr);
}

TEST(ServiceRegistryTests, ConstService_SharesTheKeyOfItsType) {
  const WallClock clock{7};
  ServiceRegistry services;
  services.add(clock);  // T = const WallClock
  EXPECT_TRUE(services.contains(internal::type_key<WallClock>()));
  ASSERT_NE(services.find<const WallClock>(), nullptr);
  EXPECT_EQ(services.find<const WallClock>()->now, 7);
  EXPECT_EQ(services.find<WallClock>(), &clock);
}

TEST(ServiceRegistryTests, Contains_AnswersByTypeKey) {
  Mailer mailer;
  ServiceRegistry services;
  EXPECT_FALSE(services.contains(internal::type_key<Mailer>()));
  services.add(mailer);
  EXPECT_TRUE(services.contains(internal::type_key<Mailer>()));
  EXPECT_TRUE(services.contains(internal::type_key<const Mailer>()));
  EXPECT_FALSE(services.contains(internal::type_key<WallClock>()));
}

TEST(ServiceRegistryTests, LastAddOfAType_Wins) {
  Mailer first{"first"};
  Mailer second{"second"};
  ServiceRegistry services;
  services.add(first).add(second);
  ASSERT_NE(services.find<Mailer>(), nullptr);
  EXPECT_EQ(services.find<Mailer>(), &second);
  EXPECT_EQ(services.find<Mailer>()->from, "second");
}

TEST(ServiceRegistryTests, ChainedAdds_RegisterEveryType) {
  Mailer mailer;
  WallClock clock;
  ServiceRegistry services;
  ServiceRegistry& chained = services.add(mailer).add(clock);
  EXPECT_EQ(&chained, &services);
  EXPECT_EQ(services.find<Mailer>(), &mailer);
  EXPECT_EQ(services.find<WallClock>(), &clock);
}

TEST(ServiceRegistryTests, ServiceAddedAsDerived_IsNotFoundAsItsBase) {
  // Keyed by the exact type added: a base-class parameter needs add<Base>.
  Derived derived;
  ServiceRegistry services;
  services.add(derived);
  EXPECT_EQ(services.find<Base>(), nullptr);
  EXPECT_EQ(services.find<Derived>(), &derived);
  services.add<Base>(derived);
  EXPECT_EQ(services.find<Base>(), static_cast<Base*>(&derived));
}

}  // namespace
}  // namespace whizbang
