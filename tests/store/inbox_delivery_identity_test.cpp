// A delivery is what its envelope says: one whose transport message id is not the envelope's
// id is dead-lettered, never handled (the inbox deduplicates by the transport's id, so a sender
// could otherwise pass one message off under another's id); so is one over the envelope limits.
#include <gtest/gtest.h>

#include "store_test_support.hpp"
#include "whizbang/store/memory_work_store.hpp"
#include "whizbang/workers/inbox_worker.hpp"

namespace whizbang {
namespace {

using store_test::transport_message;

TEST(InboxDeliveryIdentityTests, TransportIdThatIsNotTheEnvelopes_IsDeadLetteredNotHandled) {
  MemoryWorkStore store;
  int handled = 0;
  InboxWorker worker(
      store, store_test::resolve,
      [&](InboxHandling&) {
        ++handled;
        return absl::OkStatus();
      },
      InboxWorkerOptions{});
  const OutboxMessage genuine =
      store_test::outbox_message(store_test::OrderCreated{"o-1", 1}, "orders");
  TransportMessage forged = transport_message(genuine);
  forged.message_id = MessageId::mint();  // another id, the same envelope
  ASSERT_TRUE(worker.receive({&forged, 1}).ok());

  absl::StatusOr<InboxCycleResult> cycle = worker.run_once();
  ASSERT_TRUE(cycle.ok()) << cycle.status();
  EXPECT_EQ(cycle->quarantined, 1u);
  EXPECT_EQ(handled, 0);

  // The genuine delivery is handled.
  const TransportMessage delivery = transport_message(genuine);
  ASSERT_TRUE(worker.receive({&delivery, 1}).ok());
  cycle = worker.run_once();
  ASSERT_TRUE(cycle.ok()) << cycle.status();
  EXPECT_EQ(cycle->handled, 1u);
  EXPECT_EQ(handled, 1);
}

// Hops, records and bytes beyond EnvelopeLimits: each refused before it is handled.
TEST(InboxDeliveryIdentityTests, EnvelopeOverTheLimits_IsDeadLetteredNotHandled) {
  MemoryWorkStore store;
  int handled = 0;
  InboxWorkerOptions options;
  options.envelope_limits.max_hops = 3;
  options.envelope_limits.max_receptor_invocations = 2;
  options.envelope_limits.max_bytes = 16 * 1024;
  InboxWorker worker(
      store, store_test::resolve,
      [&](InboxHandling&) {
        ++handled;
        return absl::OkStatus();
      },
      options);

  auto row_of = [](Envelope envelope) {
    OutboxMessage row = store_test::outbox_message(store_test::OrderCreated{"o-1", 1}, "orders");
    envelope.message_id = row.message_id;
    row.envelope_json = serialize_envelope(envelope);
    return row;
  };
  const Envelope base = Envelope::create(AnyMessage::make(store_test::OrderCreated{"o-1", 1}),
                                         store_test::instance("orders"));
  Envelope many_hops = base;
  many_hops.hops.resize(4, base.hops.front());
  Envelope many_records = base;
  ReceptorInvocationRecord record;
  record.receptor_id = std::string("shop::Audit");
  many_records.receptor_invocations.assign(3, record);
  Envelope big =
      Envelope::create(AnyMessage::make(store_test::OrderCreated{std::string(20 * 1024, 'x'), 1}),
                       store_test::instance("orders"));
  std::vector<TransportMessage> deliveries;
  for (const Envelope& envelope : {many_hops, many_records, big}) {
    deliveries.push_back(transport_message(row_of(envelope)));
  }
  ASSERT_TRUE(worker.receive(deliveries).ok());

  absl::StatusOr<InboxCycleResult> cycle = worker.run_once();
  ASSERT_TRUE(cycle.ok()) << cycle.status();
  EXPECT_EQ(cycle->quarantined, 3u);
  EXPECT_EQ(handled, 0);
}

}  // namespace
}  // namespace whizbang
