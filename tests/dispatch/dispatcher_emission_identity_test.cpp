// DispatcherEmissionIdentityTests: derived ids of cascaded messages, and where the dispatcher
// mints instead (docs/guide/05-emission-identity.md).
#include <whizbang/ids/derived_identity.hpp>

#include "fixture.hpp"

namespace dispatch_test {
namespace {

using DispatcherEmissionIdentityTests = DispatcherTest;
using whizbang::AnyMessage;
using whizbang::DispatchModes;
using whizbang::EmissionIdentity;
using whizbang::Envelope;
using whizbang::MessageId;

constexpr std::string_view kHandler = "dispatch_test::CreateOrderReceptor";

// An inbound envelope as the inbox would materialize it for one handler row.
Envelope inbound(const MessageId& id, std::string handler = std::string(kHandler)) {
  CreateOrder command;
  command.order_id = "in";
  Envelope envelope;
  envelope.message_id = id;
  envelope.payload = AnyMessage::make(command);
  envelope.dispatch_context.handler_name = std::move(handler);
  return envelope;
}

AnyMessage noticed(std::string note) {
  ExternalNoticed event;
  event.note = std::move(note);
  return AnyMessage::make(event);
}

MessageId derive(const MessageId& source, std::string_view service, std::string_view handler,
                 std::string_view type, std::int64_t ordinal) {
  return *EmissionIdentity::derive(source.uuid(), service, handler, type, ordinal);
}

MessageId cascade_id(whizbang::Dispatcher& dispatcher, const AnyMessage& message,
                     const Envelope* source, DispatchModes mode = DispatchModes::Outbox) {
  auto record = dispatcher.cascade_message(message, source, mode);
  EXPECT_TRUE(record.ok()) << record.status();
  return record->id;
}

TEST_F(DispatcherEmissionIdentityTests, CascadeMessage_RetryOfSameHandling_DerivesTheSameEventIds) {
  const MessageId inbound_id = MessageId::mint();
  const Envelope first_run = inbound(inbound_id);
  const MessageId a1 = cascade_id(*dispatcher_, noticed("a"), &first_run);
  const MessageId b1 = cascade_id(*dispatcher_, noticed("b"), &first_run);
  // The retry materializes a fresh envelope: its sequence restarts at 0.
  const Envelope retry = inbound(inbound_id);
  EXPECT_EQ(cascade_id(*dispatcher_, noticed("a"), &retry), a1);
  EXPECT_EQ(cascade_id(*dispatcher_, noticed("b"), &retry), b1);
  // The store saw the same two ids twice: two duplicates, two rows.
  EXPECT_EQ(store_.rows.size(), 2u);
  EXPECT_EQ(store_.duplicates, 2);
}

TEST_F(DispatcherEmissionIdentityTests, CascadeMessage_NoSourceEnvelope_MintsFreshTimeOrderedIds) {
  const MessageId first = cascade_id(*dispatcher_, noticed("a"), nullptr);
  const MessageId second = cascade_id(*dispatcher_, noticed("a"), nullptr);
  EXPECT_NE(first, second);
  EXPECT_LT(first, second);
  EXPECT_TRUE(whizbang::is_v7(first.uuid()));
}

TEST_F(DispatcherEmissionIdentityTests, CascadeMessage_SourceWithoutMessageId_MintsFreshIds) {
  const Envelope no_id = inbound(MessageId());
  const MessageId first = cascade_id(*dispatcher_, noticed("a"), &no_id);
  const Envelope again = inbound(MessageId());
  const MessageId second = cascade_id(*dispatcher_, noticed("a"), &again);
  EXPECT_NE(first, second);
  EXPECT_LT(first, second);
  // With no source id to inherit, each row is its own stream (never the nil stream).
  ASSERT_EQ(store_.rows.size(), 2u);
  EXPECT_EQ(store_.rows[0].stream_id, first.uuid());
  EXPECT_EQ(store_.rows[1].stream_id, second.uuid());
}

TEST_F(DispatcherEmissionIdentityTests,
       CascadeMessage_SiblingHandlerRowOfSameMessage_DerivesDistinctEventIds) {
  const MessageId inbound_id = MessageId::mint();
  const Envelope row_a = inbound(inbound_id, "handler-a");
  const Envelope row_b = inbound(inbound_id, "handler-b");
  EXPECT_NE(cascade_id(*dispatcher_, noticed("x"), &row_a),
            cascade_id(*dispatcher_, noticed("x"), &row_b));
}

TEST_F(DispatcherEmissionIdentityTests,
       CascadeMessage_TwoServicesHandlingSameMessage_DeriveDistinctEventIds) {
  auto billing = make_dispatcher("billing");
  const MessageId inbound_id = MessageId::mint();
  const Envelope in_orders = inbound(inbound_id);
  const Envelope in_billing = inbound(inbound_id);
  EXPECT_NE(cascade_id(*dispatcher_, noticed("x"), &in_orders),
            cascade_id(*billing, noticed("x"), &in_billing));
}

TEST_F(DispatcherEmissionIdentityTests,
       CascadeMessage_DifferentEmittedTypes_DeriveDistinctEventIds) {
  const MessageId inbound_id = MessageId::mint();
  const Envelope first = inbound(inbound_id);
  const Envelope second = inbound(inbound_id);
  AuditLogged audit;
  EXPECT_NE(cascade_id(*dispatcher_, noticed("x"), &first),
            cascade_id(*dispatcher_, AnyMessage::make(audit), &second));
}

TEST_F(DispatcherEmissionIdentityTests,
       CascadeMessage_BackToBackHandlingsOnOneStream_EventIdsFollowHandlingOrder) {
  std::vector<MessageId> ids;
  for (int i = 0; i < 200; ++i) {
    const Envelope handling = inbound(MessageId::mint());  // commands issued one after another
    ids.push_back(cascade_id(*dispatcher_, noticed("v" + std::to_string(i)), &handling));
  }
  EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
}

TEST_F(DispatcherEmissionIdentityTests,
       CascadeMessage_SeveralEmissionsOfOneHandling_EventIdsFollowEmissionOrder) {
  auto result =
      dispatcher_->local_invoke<std::tuple<ExternalNoticed, ExternalNoticed>>(TwoOfAKind{});
  ASSERT_TRUE(result.ok()) << result.status();
  const auto rows = store_.rows_of("dispatch_test::ExternalNoticed");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_LT(rows[0].message_id, rows[1].message_id);
  // Same handling, ordinals 0 and 1 in the ordinal field.
  EXPECT_EQ(rows[0].message_id.uuid().bytes()[11] >> 4, 0);
  EXPECT_EQ(rows[1].message_id.uuid().bytes()[11] >> 4, 1);
}

TEST_F(DispatcherEmissionIdentityTests,
       CascadeMessage_LocalDispatch_HandsReceptorsAWrapperAnchoredOnTheCascadedEvent) {
  const Envelope source = inbound(MessageId::mint());
  OrderCreated created;
  created.order_id = "anchored";
  const MessageId event_id =
      cascade_id(*dispatcher_, AnyMessage::make(created), &source, DispatchModes::Local);
  const auto entries = journal_.entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].message_id, event_id);
  EXPECT_EQ(event_id,
            derive(source.message_id, "orders", kHandler, "dispatch_test::OrderCreated", 0));
}

TEST_F(DispatcherEmissionIdentityTests,
       CascadeMessage_LocalDispatchOfACommand_AnchorsOnAnOrdinalOfTheHandling) {
  const Envelope source = inbound(MessageId::mint());
  cascade_id(*dispatcher_, noticed("ordinal 0"), &source);
  SendInvoice invoice;
  invoice.order_id = "cmd";
  cascade_id(*dispatcher_, AnyMessage::make(invoice), &source, DispatchModes::Local);
  const auto entries = journal_.entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].receptor, "SendInvoice");
  EXPECT_EQ(entries[0].message_id,
            derive(source.message_id, "orders", kHandler, "dispatch_test::SendInvoice", 1));
}

TEST_F(DispatcherEmissionIdentityTests,
       CascadeMessage_EmissionThroughAnAnchoredWrapper_DerivesFromTheAnchorNotTheInboundMessage) {
  Envelope wrapper = inbound(MessageId::mint());
  const MessageId anchor = MessageId::mint();
  wrapper.emission_anchor = anchor;
  EXPECT_EQ(cascade_id(*dispatcher_, noticed("x"), &wrapper),
            derive(anchor, "orders", kHandler, "dispatch_test::ExternalNoticed", 0));
}

TEST_F(DispatcherEmissionIdentityTests,
       CascadeMessage_EmissionThroughAnUnanchoredWrapper_FallsBackToTheInboundMessageId) {
  const Envelope wrapper = inbound(MessageId::mint());
  EXPECT_EQ(cascade_id(*dispatcher_, noticed("x"), &wrapper),
            derive(wrapper.message_id, "orders", kHandler, "dispatch_test::ExternalNoticed", 0));
}

TEST_F(DispatcherEmissionIdentityTests,
       CascadeMessage_NestedReceptorEmittingTheSameType_IsNotDeduplicatedAway) {
  // ShipOrder emits InventoryUpdated; both of its receptors emit AuditLogged. Every AuditLogged
  // derives from its own anchor, so none collides with another and all are stored.
  ShipOrder command;
  command.order_id = "nested";
  ASSERT_TRUE(dispatcher_->local_invoke(command).ok());
  EXPECT_EQ(store_.rows_of("dispatch_test::AuditLogged").size(), 2u);
  EXPECT_EQ(store_.duplicates, 0);
}

TEST_F(DispatcherEmissionIdentityTests,
       CascadeMessage_DerivedId_IsLoggedAtDebugWithSourceAndOrdinal) {
  const Envelope source = inbound(MessageId::mint());
  const MessageId id = cascade_id(*dispatcher_, noticed("x"), &source);
  const auto lines =
      logs_containing("[CASCADE] Emission id derived from source " + source.message_id.to_string() +
                      " ordinal 0: " + id.to_string());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("[debug]"), std::string::npos);
}

TEST_F(DispatcherEmissionIdentityTests, Publish_InsideAHandlingStillMintsFreshIds) {
  ExternalNoticed event;
  event.note = "published";
  auto first = dispatcher_->publish(event);
  auto second = dispatcher_->publish(event);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_NE(first->message_id, second->message_id);
}

}  // namespace
}  // namespace dispatch_test
