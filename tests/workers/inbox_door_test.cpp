// The inbox's door (docs/guide/16-security.md, "What a sender on the broker can and cannot do"):
// each attack is the input; a refused delivery never takes an id's deduplication slot, never
// holds up the messages delivered with it, and goes to the transport's dead letters (or, on a
// transport without any, once per distinct content to the store's), on every backend. Before the
// door, the invalid byte made the PostgreSQL insert fail and the whole batch came back forever.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store_backends.hpp"
#include "support/dead_lettering_transport.hpp"
#include "support/log_capture.hpp"
#include "whizbang/internal/bounded_json.hpp"
#include "whizbang/observability/metrics.hpp"
#include "whizbang/store/store_reader.hpp"
#include "whizbang/workers/inbox_worker.hpp"

namespace store_test {
namespace {

using whizbang::DeliveryOutcome;
using whizbang::InboxWorker;
using whizbang::MessageId;
using whizbang::TransportMessage;

// `message` with its envelope's text `from` replaced by `to` (the transport id unchanged).
TransportMessage tampered(TransportMessage message, std::string_view from, std::string_view to) {
  const std::size_t at = message.envelope_json.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) message.envelope_json.replace(at, from.size(), to);
  return message;
}

template <class Backend>
class InboxDoorTests : public BackendStoreTest<Backend> {
 protected:
  void SetUp() override {
    BackendStoreTest<Backend>::SetUp();
    make_worker();
  }
  void make_worker() {
    options_.metrics = metrics_;
    options_.logger = log_.logger;
    worker_.reset();
    worker_ = std::make_unique<InboxWorker>(
        *this->store_, resolve,
        [this](whizbang::InboxHandling& handling) {
          handled_.push_back(handling.envelope.message_id);
          return absl::OkStatus();
        },
        options_);
  }
  // From now on refusals go to the transport's dead letters, as with RabbitMQ.
  void subscribe_to_a_transport_with_dead_letters() {
    subscription_ = *worker_->subscribe(transport_);
  }
  DeliveryOutcome deliver(std::vector<TransportMessage> batch) {
    return subscription_ ? transport_.deliver(batch) : worker_->receive(batch);
  }
  bool stored(const MessageId& id) {
    auto row = whizbang::reader_of(*this->store_)->find_inbox_row(id);
    EXPECT_TRUE(row.ok()) << row.status();
    return row.ok() && row->has_value();
  }
  std::vector<whizbang::DeadLetter> dead_letters() {
    auto letters = this->store_->dead_letters(100);
    EXPECT_TRUE(letters.ok()) << letters.status();
    return letters.ok() ? *letters : std::vector<whizbang::DeadLetter>{};
  }
  std::int64_t refused(std::string_view reason) {
    return metrics_->counter(whizbang::metric_names::kWorkCoordinatorMeter,
                             whizbang::metric_names::kInboxDeliveryRefused,
                             {{whizbang::metric_names::kReasonTag, reason}});
  }
  std::size_t handle_all() {
    auto cycle = worker_->run_once();
    EXPECT_TRUE(cycle.ok()) << cycle.status();
    return cycle.ok() ? cycle->handled : 0;
  }

  std::shared_ptr<whizbang::InMemoryMetrics> metrics_ =
      std::make_shared<whizbang::InMemoryMetrics>();
  whizbang_test::LogCapture log_;
  whizbang::InboxWorkerOptions options_;
  std::unique_ptr<InboxWorker> worker_;
  whizbang_test::DeadLetteringTransport transport_;
  std::unique_ptr<whizbang::TransportSubscription> subscription_;
  std::vector<MessageId> handled_;
};

TYPED_TEST_SUITE(InboxDoorTests, Backends, BackendNames);

TYPED_TEST(InboxDoorTests, InvalidUtf8InAPayload_ToTheDeadLetters_TheMessagesAroundItStored) {
  this->subscribe_to_a_transport_with_dead_letters();
  const TransportMessage before = delivered_order("o-1");
  const TransportMessage bad = tampered(delivered_order("o-2"), "o-2", "o-\xff");
  const TransportMessage after = delivered_order("o-3");
  const DeliveryOutcome outcome = this->deliver({before, bad, after});
  ASSERT_TRUE(outcome.ok()) << outcome.status;
  ASSERT_EQ(outcome.refused.size(), 1u);
  EXPECT_EQ(outcome.refused[0].index, 1u);
  EXPECT_NE(outcome.refused[0].reason.find("not well-formed"), std::string::npos)
      << outcome.refused[0].reason;
  EXPECT_TRUE(this->stored(before.message_id));
  EXPECT_TRUE(this->stored(after.message_id));
  EXPECT_FALSE(this->stored(bad.message_id));
  EXPECT_TRUE(this->dead_letters().empty()) << "the transport keeps it";
  EXPECT_EQ(this->refused("malformed"), 1);
  EXPECT_EQ(this->handle_all(), 2u);
}

// On a transport without dead letters the inbox keeps the refused delivery itself: once, however
// often it comes, under an id of its content, as text the store can hold.
TYPED_TEST(InboxDoorTests, InvalidUtf8WithoutTransportDeadLetters_KeptOnceAsStorableText) {
  const TransportMessage bad = tampered(delivered_order("o-2"), "o-2", std::string("o-\xff\0x", 5));
  for (int copy = 0; copy < 50; ++copy) {
    const DeliveryOutcome outcome = this->deliver({bad});
    ASSERT_TRUE(outcome.ok()) << outcome.status;
    EXPECT_TRUE(outcome.refused.empty());
  }
  const std::vector<whizbang::DeadLetter> letters = this->dead_letters();
  ASSERT_EQ(letters.size(), 1u);
  EXPECT_NE(letters[0].id, bad.message_id);
  EXPECT_EQ(letters[0].reason, whizbang::FailureReason::ValidationError);
  EXPECT_NE(letters[0].error.find(bad.message_id.to_string()), std::string::npos);
  EXPECT_TRUE(whizbang::internal::valid_utf8(letters[0].error));
  auto row = whizbang::reader_of(*this->store_)->find_inbox_row(letters[0].id);
  ASSERT_TRUE(row.ok() && row->has_value());
  const std::string& kept = (*row)->message.envelope_json;
  EXPECT_TRUE(whizbang::internal::valid_utf8(kept));
  EXPECT_EQ(kept.find('\0'), std::string::npos);
  EXPECT_NE(kept.find("o-\xEF\xBF\xBD\xEF\xBF\xBDx"), std::string::npos) << kept;
  EXPECT_FALSE(this->stored(bad.message_id));
  EXPECT_EQ(this->refused("malformed"), 50);
  EXPECT_EQ(this->handle_all(), 0u);
  EXPECT_TRUE(this->handled_.empty());
}

TYPED_TEST(InboxDoorTests, InvalidUtf8OrControlCharactersInTheType_Refused) {
  this->subscribe_to_a_transport_with_dead_letters();
  TransportMessage invalid = delivered_order("o-1");
  invalid.message_type += "\xff";
  TransportMessage escape = delivered_order("o-2");
  escape.message_type = "store_test::Order\x1b[2JCreated";
  TransportMessage endless = delivered_order("o-3");
  endless.message_type = std::string(5000, 'a');
  const DeliveryOutcome outcome = this->deliver({invalid, escape, endless});
  ASSERT_TRUE(outcome.ok()) << outcome.status;
  EXPECT_EQ(outcome.refused.size(), 3u);
  EXPECT_EQ(this->refused("invalid_text"), 3);
  EXPECT_FALSE(this->stored(invalid.message_id));
}

TYPED_TEST(InboxDoorTests, InvalidTypeWithoutTransportDeadLetters_KeptWithAStorableType) {
  TransportMessage invalid = delivered_order("o-1");
  invalid.message_type += std::string("\xff\0", 2);
  ASSERT_TRUE(this->deliver({invalid}).ok());
  const std::vector<whizbang::DeadLetter> letters = this->dead_letters();
  ASSERT_EQ(letters.size(), 1u);
  EXPECT_TRUE(whizbang::internal::valid_utf8(letters[0].message_type));
  EXPECT_EQ(letters[0].message_type.find('\0'), std::string::npos);
}

// A raw NUL must not cut the envelope short (PostgreSQL's text parameters end at one) and then
// be judged on what is left of it.
TYPED_TEST(InboxDoorTests, RawNulInTheEnvelope_RefusedAsMalformed) {
  this->subscribe_to_a_transport_with_dead_letters();
  const TransportMessage bad = tampered(delivered_order("o-1"), "o-1", std::string("o-\0", 3));
  const DeliveryOutcome outcome = this->deliver({bad});
  ASSERT_EQ(outcome.refused.size(), 1u);
  EXPECT_EQ(this->refused("malformed"), 1);
  EXPECT_EQ(outcome.refused[0].reason.find("unsigned"), std::string::npos);
}

TYPED_TEST(InboxDoorTests, TransportIdThatIsNotAUuidV7_RefusedSayingSo) {
  this->subscribe_to_a_transport_with_dead_letters();
  TransportMessage v4 = delivered_order("o-1");
  v4.message_id =
      MessageId::from_trusted(*whizbang::Uuid::parse("1b4e28ba-2fa1-41d2-883f-0016d3cca427"));
  const DeliveryOutcome outcome = this->deliver({v4});
  ASSERT_EQ(outcome.refused.size(), 1u);
  EXPECT_NE(outcome.refused[0].reason.find("not a UUIDv7"), std::string::npos);
  EXPECT_EQ(this->refused("invalid_id"), 1);
}

// The replay that stole an id: a genuine envelope re-published under the transport id of a
// message still to come. Refused before the deduplication slot is taken, so the genuine message
// of that id is handled when it arrives.
TYPED_TEST(InboxDoorTests, CopyUnderAnotherTransportId_DoesNotTakeThatIdsSlot) {
  this->subscribe_to_a_transport_with_dead_letters();
  const TransportMessage earlier = delivered_order("o-1");
  const TransportMessage coming = delivered_order("o-2");
  TransportMessage replayed = earlier;
  replayed.message_id = coming.message_id;
  DeliveryOutcome outcome = this->deliver({replayed});
  ASSERT_EQ(outcome.refused.size(), 1u);
  EXPECT_NE(outcome.refused[0].reason.find("was delivered as message"), std::string::npos);
  EXPECT_FALSE(this->stored(coming.message_id));
  EXPECT_EQ(this->refused("id_mismatch"), 1);

  outcome = this->deliver({coming});
  ASSERT_TRUE(outcome.ok() && outcome.refused.empty());
  EXPECT_EQ(this->handle_all(), 1u);
  ASSERT_EQ(this->handled_.size(), 1u);
  EXPECT_EQ(this->handled_[0], coming.message_id);
}

TYPED_TEST(InboxDoorTests, CopyUnderAnotherIdWithoutTransportDeadLetters_SlotStaysFree) {
  const TransportMessage earlier = delivered_order("o-1");
  const TransportMessage coming = delivered_order("o-2");
  TransportMessage replayed = earlier;
  replayed.message_id = coming.message_id;
  ASSERT_TRUE(this->deliver({replayed}).ok());
  EXPECT_EQ(this->dead_letters().size(), 1u);
  ASSERT_TRUE(this->deliver({coming}).ok());
  EXPECT_EQ(this->handle_all(), 1u);
}

// Unbounded growth without the key: every copy of a refused delivery was a row of its own.
TYPED_TEST(InboxDoorTests, TwoHundredCopiesOfAnUnknownType_OneDeadLetter) {
  TransportMessage unknown = delivered_order("o-1");
  unknown.message_type = "Shop.Contracts.CancelOrder, Shop.Contracts";
  for (int copy = 0; copy < 200; ++copy) ASSERT_TRUE(this->deliver({unknown}).ok());
  EXPECT_EQ(this->dead_letters().size(), 1u);
  EXPECT_EQ(this->refused("unknown_type"), 200);
  EXPECT_EQ(this->worker_->delivery_health().refused_deliveries, 200u);
}

TYPED_TEST(InboxDoorTests, EnvelopeNamingAnotherType_Refused) {
  this->subscribe_to_a_transport_with_dead_letters();
  const TransportMessage other =
      tampered(delivered_order("o-1"), R"("t":"store_test::OrderCreated")",
               R"("t":"store_test::AuditEvent")");
  EXPECT_EQ(this->deliver({other}).refused.size(), 1u);
  EXPECT_EQ(this->refused("type_mismatch"), 1);
}

// Hops, records and bytes beyond EnvelopeLimits: each refused before it is stored.
TYPED_TEST(InboxDoorTests, EnvelopeOverTheLimits_Refused) {
  this->options_.envelope_limits.max_hops = 3;
  this->options_.envelope_limits.max_receptor_invocations = 2;
  this->options_.envelope_limits.max_bytes = 16 * 1024;
  this->make_worker();
  this->subscribe_to_a_transport_with_dead_letters();
  auto delivery_of = [](whizbang::Envelope envelope) {
    whizbang::OutboxMessage row = outbox_message(OrderCreated{"o-1", 1}, "orders");
    envelope.message_id = row.message_id;
    row.envelope_json = whizbang::serialize_envelope(envelope);
    return transport_message(row);
  };
  const whizbang::Envelope base = whizbang::Envelope::create(
      whizbang::AnyMessage::make(OrderCreated{"o-1", 1}), instance("orders"));
  whizbang::Envelope many_hops = base;
  many_hops.hops.resize(4, base.hops.front());
  whizbang::Envelope many_records = base;
  whizbang::ReceptorInvocationRecord record;
  record.receptor_id = std::string("shop::Audit");
  many_records.receptor_invocations.assign(3, record);
  const whizbang::Envelope big = whizbang::Envelope::create(
      whizbang::AnyMessage::make(OrderCreated{std::string(20 * 1024, 'x'), 1}), instance("orders"));
  const DeliveryOutcome outcome =
      this->deliver({delivery_of(many_hops), delivery_of(many_records), delivery_of(big)});
  EXPECT_EQ(outcome.refused.size(), 3u);
  EXPECT_EQ(this->refused("over_limits"), 2);
  EXPECT_EQ(this->refused("too_large"), 1);
  EXPECT_EQ(this->handle_all(), 0u);
}

// A sender can put any number of bad messages on the broker: each is counted, the log gets a
// line, not a flood.
TYPED_TEST(InboxDoorTests, AFloodOfRefusals_CountedEach_LoggedOnce) {
  this->subscribe_to_a_transport_with_dead_letters();
  std::vector<TransportMessage> flood;
  for (int i = 0; i < 100; ++i) {
    flood.push_back(delivered_order("o-" + std::to_string(i)));
    flood.back().message_type = "Mallory.Type" + std::to_string(i);
  }
  EXPECT_EQ(this->deliver(flood).refused.size(), 100u);
  EXPECT_EQ(this->refused("unknown_type"), 100);
  EXPECT_EQ(this->log_.count("[EventId 160 EnvelopeRefused]"), 1);
}

// What the inbox keeps of refused deliveries does not grow for ever: retention purges it.
TYPED_TEST(InboxDoorTests, KeptRefusals_PurgedByRetention) {
  TransportMessage unknown = delivered_order("o-1");
  unknown.message_type = "Shop.Contracts.CancelOrder, Shop.Contracts";
  ASSERT_TRUE(this->deliver({unknown}).ok());
  ASSERT_EQ(this->dead_letters().size(), 1u);
  auto purged = this->store_->purge(whizbang::RetentionOptions{});
  ASSERT_TRUE(purged.ok()) << purged.status();
  EXPECT_EQ(purged->refused_deliveries, 0) << "not yet past its retention";
  this->clock_.advance(std::chrono::hours(24 * 8));
  purged = this->store_->purge(whizbang::RetentionOptions{});
  ASSERT_TRUE(purged.ok()) << purged.status();
  EXPECT_EQ(purged->refused_deliveries, 1);
  EXPECT_TRUE(this->dead_letters().empty());
}

// A redelivery is dropped, as before, and now counted and logged (it was silent).
TYPED_TEST(InboxDoorTests, Redelivery_DroppedAsADuplicate_Counted) {
  const TransportMessage message = delivered_order("o-1");
  ASSERT_TRUE(this->deliver({message}).ok());
  ASSERT_TRUE(this->deliver({message}).ok());
  EXPECT_EQ(this->metrics_->counter(whizbang::metric_names::kWorkCoordinatorMeter,
                                    whizbang::metric_names::kInboxDuplicateDropped),
            1);
  EXPECT_EQ(this->worker_->delivery_health().duplicates_dropped, 1u);
  EXPECT_EQ(this->handle_all(), 1u);
}

}  // namespace
}  // namespace store_test
