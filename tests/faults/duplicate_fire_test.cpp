// DuplicateFireThrowTests: with OnDoubleFire::Throw a duplicate fire fails its handling once,
// durably: the row is dead-lettered with the guardrail's reason, and neither the duplicate nor
// the receptors that fired before it in that handling fire again.
#include "fault_fixture.hpp"

namespace faults {
namespace {

using testing::HasSubstr;
using namespace std::chrono_literals;

class DuplicateFireThrowTests : public ::testing::TestWithParam<Backend> {
 protected:
  TestDir dir_;
  TestClock clock_;
  LogCapture log_;
  whizbang::InProcessTransport transport_;
};

INSTANTIATE_TEST_SUITE_P(Stores, DuplicateFireThrowTests, all_backends(), backend_name);

TEST_P(DuplicateFireThrowTests, DuplicateFire_DeadLettersTheRowOnce) {
  ServiceConfig config{GetParam(), "shipping", &transport_, &clock_, &log_, &dir_};
  config.configure = [](whizbang::HostOptions& options) {
    options.guardrails.on_double_fire = whizbang::OnDoubleFire::Throw;
  };
  Service shipping(config);
  // An OrderPlaced whose envelope says DetachedAuditor already fired in "shipping": OrderFollower
  // (PostInboxInline) is not stopped; DetachedAuditor (PostInboxDetached, run before it) is a
  // duplicate and throws.
  whizbang::ServiceInstance origin;
  origin.service_name = "orders";
  OrderPlaced placed;
  placed.order_id = "o-1";
  whizbang::Envelope envelope =
      whizbang::Envelope::create(whizbang::AnyMessage::make(placed), origin);
  envelope.hops.front().stream_id = envelope.message_id.uuid();
  envelope.receptor_invocations.push_back({"faults::DetachedAuditor",
                                           whizbang::Stage::PostInboxDetached, clock_.now(),
                                           std::chrono::microseconds(5), "shipping", ""});
  const whizbang::TransportMessage sent{envelope.message_id, "faults::OrderPlaced",
                                        whizbang::serialize_envelope(envelope),
                                        envelope.stream_id(), true};
  ASSERT_TRUE(transport_.publish({"orders", "faults.orderplaced", {}}, {&sent, 1}).ok());
  for (int round = 0; round < 4; ++round) {
    settle({&shipping});
    clock_.advance(10min);
  }
  EXPECT_EQ(shipping.faults.count("DetachedAuditor"), 0);
  auto row = whizbang::reader_of(*shipping.store)->find_inbox_row(envelope.message_id);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_TRUE((*row)->state.dead_lettered_at.has_value()) << "failed once, durably";
  EXPECT_EQ((*row)->state.attempts, 1);
  EXPECT_THAT((*row)->state.error, HasSubstr("faults::DetachedAuditor"));
}

}  // namespace
}  // namespace faults
