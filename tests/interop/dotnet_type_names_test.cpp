// .NET type names: the registry resolves every form a Whizbang .NET service sends, the RabbitMQ
// transport names a shared type's envelope as .NET resolves it, and a shared type is routed
// where .NET publishes and subscribes (docs/guide/15-dotnet-services.md).
#include <gtest/gtest.h>
#include <whizbang/dispatch/outbox_routing.hpp>
#include <whizbang/transport/publish_strategy.hpp>
#include <whizbang/transport/rabbitmq/rabbitmq_topology.hpp>

#include "interop_messages.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace interop_test {
namespace {

const whizbang::Registry& registry() {
  return whizbang::generated::whizbang_interop_tests::registry();
}

const whizbang::MessageTypeInfo& placed() { return whizbang::MessageTraits<OrderPlaced>::info(); }

TEST(DotNetTypeNameTests, Registry_ResolvesTheWireNameAndEveryAssemblyQualifiedForm) {
  for (const char* name :
       {"Shop.Contracts.OrderPlaced", "Shop.Contracts.OrderPlaced, Shop.Contracts",
        "Shop.Contracts.OrderPlaced,Shop.Contracts",
        "Shop.Contracts.OrderPlaced, Shop.Contracts, Version=1.0.0.0, Culture=neutral, "
        "PublicKeyToken=null"}) {
    EXPECT_EQ(registry().find_message(name), &placed()) << name;
  }
}

TEST(DotNetTypeNameTests, Registry_AnotherAssemblyOrAnUnsharedTypeIsNotResolved) {
  EXPECT_EQ(registry().find_message("Shop.Contracts.OrderPlaced, Other.Contracts"), nullptr);
  EXPECT_EQ(registry().find_message("Shop.Contracts.Unknown, Shop.Contracts"), nullptr);
  // A type that is not shared has no .NET name to be found by.
  EXPECT_NE(registry().find_message("interop_test::LineAudited"), nullptr);
  EXPECT_EQ(registry().find_message("interop_test::LineAudited, Shop.Contracts"), nullptr);
}

TEST(DotNetTypeNameTests, EnvelopeType_NamesTheDotNetTypeAndReadsBack) {
  const std::string envelope_type = whizbang::rabbitmq_envelope_type(placed().dotnet_type);
  EXPECT_EQ(envelope_type,
            "Whizbang.Core.Observability.MessageEnvelope`1[[Shop.Contracts.OrderPlaced, "
            "Shop.Contracts]], Whizbang.Core");
  EXPECT_EQ(registry().find_message(whizbang::message_type_from_envelope_type(envelope_type)),
            &placed());
}

TEST(DotNetTypeNameTests, Routing_EventsToTheLowerCasedNamespace_CommandsByTheirFullName) {
  EXPECT_EQ(whizbang::default_destination(placed()), "shop.contracts");
  EXPECT_EQ(whizbang::routing_key_for(placed().wire_name), "shop.contracts.orderplaced");
  const whizbang::MessageTypeInfo& ship = whizbang::MessageTraits<ShipOrder>::info();
  EXPECT_EQ(whizbang::routing_key_for(ship.wire_name), "shop.contracts.shiporder");
  // Unshared types keep the library's own convention.
  EXPECT_EQ(whizbang::default_destination(whizbang::MessageTraits<LineAudited>::info()),
            "lineaudited");
}

}  // namespace
}  // namespace interop_test
