// PerspectiveHostTests: a service hosts perspectives over events other services publish.
#include <gtest/gtest.h>

#include <whizbang/dispatch/outbox_routing.hpp>
#include <whizbang/host/service_host.hpp>
#include <whizbang/message/envelope_json.hpp>
#include <whizbang/store/memory_work_store.hpp>
#include <whizbang/transport/in_process_transport.hpp>
#include <whizbang/transport/publish_strategy.hpp>

#include "read_models.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace persp {
namespace {

// OrderShipped has no receptor in this registry, only SummaryPerspective's apply overload.
TEST(PerspectiveHostTests, EventOnlyAPerspectiveProjects_IsReceivedFromAnotherService) {
  Journal journal;
  Behaviour behaviour;
  whizbang::ServiceRegistry services;
  services.add<Journal>(journal).add<Behaviour>(behaviour);
  whizbang::StoreOptions store_options;
  store_options.instance.service_name = "read-side";
  whizbang::MemoryWorkStore store(store_options);
  whizbang::InProcessTransport transport;
  whizbang::HostOptions options;
  options.service_name = "read-side";
  options.store = &store;
  options.transport = &transport;
  auto host = whizbang::ServiceHost::create(
      whizbang::generated::whizbang_perspective_tests::registry(), services, std::move(options));
  ASSERT_TRUE(host.ok()) << host.status();
  ASSERT_TRUE((*host)->subscribe().ok());

  // What the shipping service's drain worker publishes for its OrderShipped outbox row.
  whizbang::ServiceInstance shipping;
  shipping.service_name = "shipping";
  OrderShipped shipped;
  shipped.order_id = "o-7";
  whizbang::Envelope envelope =
      whizbang::Envelope::create(whizbang::AnyMessage::make(shipped), shipping);
  envelope.hops.front().stream_id = whizbang::MessageId::mint().uuid();  // the order's stream
  const whizbang::MessageTypeInfo& type = whizbang::MessageTraits<OrderShipped>::info();
  const whizbang::TransportMessage message{envelope.message_id, std::string(type.wire_name),
                                           whizbang::serialize_envelope(envelope),
                                           envelope.stream_id(), true};
  whizbang::TransportDestination destination;
  destination.address = whizbang::default_destination(type);
  destination.routing_key = whizbang::routing_key_for(type.wire_name);
  ASSERT_TRUE(transport.publish(destination, {&message, 1}).ok());

  // The inbox stored it, so the perspective worker projects it.
  for (int cycle = 0; cycle < 3; ++cycle) ASSERT_TRUE((*host)->run_once().ok());
  EXPECT_EQ(journal.count("apply:Summary"), 1);
  auto row = store.load_perspective_model("persp::SummaryPerspective", *envelope.stream_id());
  ASSERT_TRUE(row.ok()) << row.status();
  ASSERT_TRUE(row->has_value());
  EXPECT_NE((*row)->model_json.find("\"shipped\":true"), std::string::npos) << (*row)->model_json;
}

}  // namespace
}  // namespace persp
