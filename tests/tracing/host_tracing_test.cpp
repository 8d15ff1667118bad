// The spans of messages through hosts on the in-process transport: a .NET trace continued and
// carried on, tracing off passing `tp` through unchanged, invalid and missing `tp`, one order's
// span tree across two services, the guardrail's decisions, a retry's link, a caller's context.
#include <regex>

#include "support/dotnet_reader_rules.hpp"
#include "tracing_fixture.hpp"

namespace tracing_test {
namespace {

namespace names = whizbang::span_names;
namespace keys = whizbang::span_attributes;
namespace values = whizbang::span_values;
using whizbang_test::bool_attribute;
using whizbang_test::int_attribute;
using whizbang_test::string_attribute;
using namespace std::chrono_literals;

constexpr char kDotNetHopTraceParent[] = "00-8fe2f60995fa4b5b2a2792f08b1ad39f-a8e13f9311145b78-01";

template <class Message>
std::string wire() {
  return std::string(whizbang::MessageTraits<Message>::info().wire_name);
}

std::string named(std::string_view prefix, std::string_view subject) {
  std::string name(prefix);
  name.append(subject);
  return name;
}

// The only span of that name; fails the test when there is not exactly one.
whizbang::SpanData only(const whizbang_test::RecordingSpanSink& sink, const std::string& name) {
  std::vector<whizbang::SpanData> found = sink.named(name);
  EXPECT_EQ(found.size(), 1u) << name;
  return found.empty() ? whizbang::SpanData{} : found.front();
}

OrderPlaced placed(std::string id) {
  OrderPlaced event;
  event.order_id = std::move(id);
  return event;
}

class HostTracingTests : public ::testing::Test {
 protected:
  whizbang::InProcessTransport transport_;
  TestClock clock_;
};

TEST_F(HostTracingTests, DotNetEnvelopeWithTp_ContinuesItsTrace_CascadedEventsCarryTpDotNetReads) {
  Service shipping({"shipping", &transport_, &clock_});
  whizbang::Envelope envelope = envelope_of(placed("o-1"), "Shop.OrderService");
  envelope.hops.front().trace_parent = kDotNetHopTraceParent;
  deliver(transport_, envelope);
  settle({&shipping});
  ASSERT_EQ(shipping.log.shipped, 1);

  const auto dotnet = *whizbang::TraceContext::parse(kDotNetHopTraceParent);
  const whizbang::SpanData process =
      only(*shipping.sink, named(names::kProcessPrefix, wire<OrderPlaced>()));
  EXPECT_EQ(process.context.trace_id, dotnet.trace_id) << "trace id kept";
  EXPECT_EQ(process.parent_span_id, dotnet.span_id) << "parent = the hop's span";
  EXPECT_EQ(process.kind, whizbang::SpanKind::Consumer);
  EXPECT_EQ(string_attribute(process, keys::kMessagingOperationType), values::kOperationProcess);
  EXPECT_EQ(string_attribute(process, keys::kMessagingSystem), values::kSystemWhizbang);
  EXPECT_EQ(string_attribute(process, keys::kMessagingMessageId), envelope.message_id.to_string());
  EXPECT_EQ(int_attribute(process, keys::kAttempt), 0);

  const whizbang::SpanData receptor =
      only(*shipping.sink, named(names::kReceptorPrefix, "tracing_test::ShipOrderReceptor"));
  EXPECT_EQ(receptor.parent_span_id, process.context.span_id);
  EXPECT_EQ(string_attribute(receptor, keys::kExactlyOnceDecision), values::kDecisionFired);

  const whizbang::SpanData dispatch =
      only(*shipping.sink, named(names::kDispatchPrefix, wire<OrderShipped>()));
  EXPECT_EQ(dispatch.parent_span_id, receptor.context.span_id);
  EXPECT_EQ(string_attribute(dispatch, keys::kEmissionDerivedFrom),
            envelope.message_id.to_string());
  EXPECT_EQ(int_attribute(dispatch, keys::kEmissionOrdinal), 0);

  const std::vector<whizbang::Envelope> shipped =
      published_envelopes(transport_, wire<OrderShipped>());
  ASSERT_EQ(shipped.size(), 1u);
  const std::string& tp = shipped[0].hops.back().trace_parent;
  EXPECT_TRUE(std::regex_match(tp, std::regex("00-[0-9a-f]{32}-[0-9a-f]{16}-01"))) << tp;
  EXPECT_EQ(tp, dispatch.context.traceparent()) << "the span that produced the hop";
  for (const auto& published : transport_.published()) {
    if (published.message.message_type != wire<OrderShipped>()) continue;
    const std::vector<std::string> problems =
        whizbang::test::DotNetReaderRules::problems(published.message.envelope_json);
    EXPECT_TRUE(problems.empty()) << ::testing::PrintToString(problems);
  }
  EXPECT_EQ(shipped[0].message_id.to_string(),
            string_attribute(dispatch, keys::kMessagingMessageId));

  const std::vector<whizbang::SpanData> publishes = shipping.sink->named(
      named(names::kPublishPrefix,
            whizbang::default_destination(whizbang::MessageTraits<OrderShipped>::info())));
  ASSERT_EQ(publishes.size(), 1u);
  EXPECT_EQ(publishes[0].kind, whizbang::SpanKind::Producer);
  EXPECT_EQ(publishes[0].parent_span_id, dispatch.context.span_id);
  EXPECT_EQ(string_attribute(publishes[0], keys::kMessagingOperationType),
            values::kOperationPublish);
  EXPECT_TRUE(string_attribute(publishes[0], keys::kRabbitMqRoutingKey).has_value());
}

TEST_F(HostTracingTests, TracingOff_IncomingTpPassedOnUnchanged) {
  Service shipping({"shipping", &transport_, &clock_, /*traced=*/false});
  whizbang::Envelope envelope = envelope_of(placed("o-1"), "Shop.OrderService");
  envelope.hops.front().trace_parent = kDotNetHopTraceParent;
  deliver(transport_, envelope);
  settle({&shipping});
  ASSERT_EQ(shipping.log.shipped, 1);
  const auto shipped = published_envelopes(transport_, wire<OrderShipped>());
  ASSERT_EQ(shipped.size(), 1u);
  EXPECT_EQ(shipped[0].hops.back().trace_parent, kDotNetHopTraceParent);
  EXPECT_TRUE(shipping.sink->spans().empty());
}

TEST_F(HostTracingTests, InvalidTp_CountedAndIgnored_HandlingStartsANewTrace) {
  Service shipping({"shipping", &transport_, &clock_});
  whizbang::Envelope envelope = envelope_of(placed("o-1"));
  envelope.hops.front().trace_parent = "00-8fe2f60995fa4b5b-nonsense-01";
  deliver(transport_, envelope);
  settle({&shipping});
  EXPECT_EQ(shipping.log.shipped, 1) << "never a failure";
  EXPECT_EQ(shipping.invalid_trace_parents(), 1);
  const whizbang::SpanData process =
      only(*shipping.sink, named(names::kProcessPrefix, wire<OrderPlaced>()));
  EXPECT_FALSE(process.parent_span_id.has_value());
  EXPECT_TRUE(bool_attribute(process, keys::kTraceParentInvalid));
  const auto shipped = published_envelopes(transport_, wire<OrderShipped>());
  ASSERT_EQ(shipped.size(), 1u);
  const auto tp = whizbang::TraceContext::parse(shipped[0].hops.back().trace_parent);
  ASSERT_TRUE(tp.has_value()) << "the new trace goes on, valid";
  EXPECT_EQ(tp->trace_id, process.context.trace_id);
}

TEST_F(HostTracingTests, NoTp_HandlingIsTheRootOfANewTrace_NamedByTheMessageId) {
  Service shipping({"shipping", &transport_, &clock_});
  const whizbang::Envelope envelope = envelope_of(placed("o-1"));
  deliver(transport_, envelope);
  settle({&shipping});
  const whizbang::SpanData process =
      only(*shipping.sink, named(names::kProcessPrefix, wire<OrderPlaced>()));
  EXPECT_FALSE(process.parent_span_id.has_value());
  EXPECT_EQ(process.context.trace_id.bytes, envelope.message_id.uuid().bytes());
  EXPECT_EQ(shipping.invalid_trace_parents(), 0);
}

TEST_F(HostTracingTests, OneOrderAcrossTwoServices_OneTraceWithParentChildLinks) {
  Service orders({"orders", &transport_, &clock_});
  Service shipping({"shipping", &transport_, &clock_});
  PlaceOrder command;
  command.order_id = "o-7";
  ASSERT_TRUE(orders.host->dispatcher().send(command).ok());
  settle({&orders, &shipping});
  ASSERT_GE(shipping.log.shipped, 1);

  const whizbang::SpanData root =
      only(*orders.sink, named(names::kDispatchPrefix, wire<PlaceOrder>()));
  EXPECT_FALSE(root.parent_span_id.has_value());
  const whizbang::SpanData placing =
      only(*orders.sink, named(names::kReceptorPrefix, "tracing_test::PlaceOrderReceptor"));
  EXPECT_EQ(placing.parent_span_id, root.context.span_id);
  const whizbang::SpanData dispatch_placed =
      only(*orders.sink, named(names::kDispatchPrefix, wire<OrderPlaced>()));
  EXPECT_EQ(dispatch_placed.parent_span_id, placing.context.span_id);
  const whizbang::SpanData publish =
      only(*orders.sink,
           named(names::kPublishPrefix,
                 whizbang::default_destination(whizbang::MessageTraits<OrderPlaced>::info())));
  EXPECT_EQ(publish.parent_span_id, dispatch_placed.context.span_id);

  const whizbang::SpanData process =
      only(*shipping.sink, named(names::kProcessPrefix, wire<OrderPlaced>()));
  EXPECT_EQ(process.parent_span_id, dispatch_placed.context.span_id) << "across the services";
  const whizbang::SpanData shipping_receptor =
      only(*shipping.sink, named(names::kReceptorPrefix, "tracing_test::ShipOrderReceptor"));
  EXPECT_EQ(shipping_receptor.parent_span_id, process.context.span_id);
  const whizbang::SpanData receive =
      only(*shipping.sink, named(names::kReceivePrefix, wire<OrderPlaced>()));
  EXPECT_EQ(receive.kind, whizbang::SpanKind::Consumer);
  EXPECT_EQ(receive.parent_span_id, dispatch_placed.context.span_id);
  EXPECT_EQ(string_attribute(receive, keys::kMessagingOperationType), values::kOperationReceive);
  EXPECT_FALSE(bool_attribute(receive, keys::kDeduplicated));
  const whizbang::SpanData apply = only(
      *shipping.sink, named(names::kPerspectivePrefix, "tracing_test::PlacedOrdersPerspective"));
  EXPECT_EQ(apply.parent_span_id, dispatch_placed.context.span_id);
  EXPECT_EQ(string_attribute(apply, keys::kPerspective), "tracing_test::PlacedOrdersPerspective");
  for (const auto* sink : {orders.sink.get(), shipping.sink.get()}) {
    for (const whizbang::SpanData& span : sink->spans()) {
      EXPECT_EQ(span.context.trace_id, root.context.trace_id) << span.name << ": one trace";
    }
  }
}

TEST_F(HostTracingTests, DuplicateDelivery_ItsReceiveSpanSaysDeduplicated) {
  Service shipping({"shipping", &transport_, &clock_});
  const whizbang::Envelope envelope = envelope_of(placed("o-1"));
  deliver(transport_, envelope);
  deliver(transport_, envelope);
  settle({&shipping});
  EXPECT_EQ(shipping.log.shipped, 1);
  const std::vector<whizbang::SpanData> receives =
      shipping.sink->named(named(names::kReceivePrefix, wire<OrderPlaced>()));
  ASSERT_EQ(receives.size(), 2u);
  EXPECT_FALSE(bool_attribute(receives[0], keys::kDeduplicated));
  EXPECT_TRUE(bool_attribute(receives[1], keys::kDeduplicated));
}

TEST_F(HostTracingTests, GuardrailSkip_AlreadyFiredHere_IsTheDecisionOnTheReceptorSpan) {
  Service shipping({"shipping", &transport_, &clock_});
  whizbang::Envelope envelope = envelope_of(placed("o-1"));
  envelope.receptor_invocations.push_back({"tracing_test::ShipOrderReceptor",
                                           whizbang::Stage::PostInboxInline, clock_.now(),
                                           std::chrono::microseconds(5), "shipping", ""});
  deliver(transport_, envelope);
  settle({&shipping});
  EXPECT_EQ(shipping.log.shipped, 0);
  const whizbang::SpanData receptor =
      only(*shipping.sink, named(names::kReceptorPrefix, "tracing_test::ShipOrderReceptor"));
  EXPECT_EQ(string_attribute(receptor, keys::kExactlyOnceDecision), values::kDecisionSkippedHere);
  EXPECT_EQ(string_attribute(receptor, keys::kExactlyOncePriorService), "shipping");
}

TEST_F(HostTracingTests, GuardrailSkip_FiredInAnotherService_IsTheDecisionOnTheReceptorSpan) {
  Service shipping({"shipping", &transport_, &clock_});
  Audited audited;
  audited.what = "x";
  whizbang::Envelope envelope = envelope_of(audited);
  envelope.receptor_invocations.push_back({"tracing_test::AuditOnce",
                                           whizbang::Stage::PostInboxInline, clock_.now(),
                                           std::chrono::microseconds(5), "billing", ""});
  deliver(transport_, envelope);
  settle({&shipping});
  const whizbang::SpanData receptor =
      only(*shipping.sink, named(names::kReceptorPrefix, "tracing_test::AuditOnce"));
  EXPECT_EQ(string_attribute(receptor, keys::kExactlyOnceDecision),
            values::kDecisionSkippedElsewhere);
  EXPECT_EQ(string_attribute(receptor, keys::kExactlyOncePriorService), "billing");
}

TEST_F(HostTracingTests, RetriedHandling_LinksToTheEarlierAttemptsSpan) {
  Service billing({"billing", &transport_, &clock_});
  billing.log.failures_left = 1;
  ChargeCard command;
  command.order_id = "o-1";
  deliver(transport_, envelope_of(command));
  for (int round = 0; round < 3 && billing.log.charged == 0; ++round) {
    settle({&billing});
    clock_.advance(10min);
  }
  ASSERT_EQ(billing.log.charged, 1);
  const std::vector<whizbang::SpanData> attempts =
      billing.sink->named(named(names::kProcessPrefix, wire<ChargeCard>()));
  ASSERT_EQ(attempts.size(), 2u);
  EXPECT_EQ(int_attribute(attempts[0], keys::kAttempt), 0);
  EXPECT_EQ(attempts[0].status, whizbang::SpanStatusCode::Error);
  ASSERT_FALSE(attempts[0].events.empty());
  EXPECT_EQ(attempts[0].events[0].name, values::kExceptionEvent);
  EXPECT_EQ(int_attribute(attempts[1], keys::kAttempt), 1);
  EXPECT_EQ(attempts[1].status, whizbang::SpanStatusCode::Unset);
  ASSERT_EQ(attempts[1].links.size(), 1u);
  EXPECT_EQ(attempts[1].links[0].context.span_id, attempts[0].context.span_id);
  EXPECT_EQ(attempts[1].links[0].context.trace_id, attempts[0].context.trace_id);
  const whizbang::SpanData failed_receptor =
      billing.sink->named(named(names::kReceptorPrefix, "tracing_test::CardCharger")).front();
  EXPECT_EQ(failed_receptor.status, whizbang::SpanStatusCode::Error);
}

TEST_F(HostTracingTests, CallerContext_TraceScope_SendContinuesIt) {
  Service orders({"orders", &transport_, &clock_});
  const auto request = *whizbang::TraceContext::parse(kDotNetHopTraceParent);
  PlaceOrder command;
  command.order_id = "o-1";
  {
    whizbang::TraceScope scope(request);
    ASSERT_TRUE(orders.host->dispatcher().send(command).ok());
  }
  const whizbang::SpanData root =
      only(*orders.sink, named(names::kDispatchPrefix, wire<PlaceOrder>()));
  EXPECT_EQ(root.context.trace_id, request.trace_id);
  EXPECT_EQ(root.parent_span_id, request.span_id);

  Pinged ping;
  {
    whizbang::TraceScope scope(request);
    ASSERT_TRUE(orders.host->dispatcher().publish(whizbang::Route::LocalNoPersist(ping)).ok());
  }
  EXPECT_EQ(orders.log.pinged, 1);
  const whizbang::SpanData pinged =
      only(*orders.sink, named(names::kDispatchPrefix, wire<Pinged>()));
  EXPECT_EQ(pinged.parent_span_id, request.span_id);
  const whizbang::SpanData receptor =
      only(*orders.sink, named(names::kReceptorPrefix, "tracing_test::PingReceptor"));
  EXPECT_EQ(receptor.parent_span_id, pinged.context.span_id);
}

TEST_F(HostTracingTests, CallerContext_TracingOff_HopsCarryTheCallersTraceParent) {
  Service orders({"orders", &transport_, &clock_, /*traced=*/false});
  PlaceOrder command;
  command.order_id = "o-1";
  {
    whizbang::TraceScope scope(*whizbang::TraceContext::parse(kDotNetHopTraceParent));
    ASSERT_TRUE(orders.host->dispatcher().send(command).ok());
  }
  settle({&orders});
  const auto placed_envelopes = published_envelopes(transport_, wire<OrderPlaced>());
  ASSERT_EQ(placed_envelopes.size(), 1u);
  EXPECT_EQ(placed_envelopes[0].hops.back().trace_parent, kDotNetHopTraceParent);
}

}  // namespace
}  // namespace tracing_test
