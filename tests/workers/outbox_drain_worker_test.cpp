// OutboxDrainWorker: source-service-id resolution (the cascade page's named tests), transport
// routing (scenarios 67–68), deferred channel, quarantine.
#include "whizbang/workers/outbox_drain_worker.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <stdexcept>
#include <utility>

#include "store_test_support.hpp"
#include "support/forwarding_transport.hpp"
#include "support/temp_dir.hpp"
#include "whizbang/store/memory_work_store.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"
#include "whizbang/transport/in_process_transport.hpp"
#include "whizbang/transport/publish_strategy.hpp"

namespace store_test {
namespace {

using namespace whizbang;
using namespace std::chrono_literals;

class OutboxDrainWorkerTests : public ::testing::Test {
 protected:
  OutboxDrainWorkerTests() {
    StoreOptions options;
    options.instance = instance("orders");
    options.now = clock_.fn();
    options.logger = log_.logger;
    store_ = std::make_unique<MemoryWorkStore>(options);
  }

  // A worker publishing to `transport` (the fixture's, which has a command consumer, by default).
  std::unique_ptr<OutboxDrainWorker> worker(std::function<Uuid()> lookup,
                                            Transport* transport = nullptr) {
    OutboxDrainWorkerOptions options;
    options.local_service_id_lookup = std::move(lookup);
    options.logger = log_.logger;
    return std::make_unique<OutboxDrainWorker>(
        *store_, transport != nullptr ? *transport : transport_, resolve, options, &channel_);
  }
  void store_one() {
    const OutboxMessage message = outbox_message(OrderCreated{"o", 1}, "orders");
    ASSERT_TRUE(store_->store_outbox_messages({&message, 1}).ok());
  }
  // The source service id of the last published envelope.
  Uuid last_published_source() {
    auto published = transport_.published();
    EXPECT_FALSE(published.empty());
    if (published.empty()) return {};
    auto envelope = deserialize_envelope(published.back().message.envelope_json, resolve);
    EXPECT_TRUE(envelope.ok()) << envelope.status();
    return envelope.ok() ? envelope->source_service_id : Uuid();
  }
  // One event drained through `via`: the first cycle keeps its row (no failure, no attempt, no
  // backoff); once `recover` ran, the next cycle publishes it.
  void expect_kept_without_an_attempt_then_published(Transport& via,
                                                     const std::function<void()>& recover) {
    auto w = worker(nullptr, &via);
    const OutboxMessage event = outbox_message(OrderCreated{"o", 1}, "orders");
    ASSERT_TRUE(store_->store_outbox_messages({&event, 1}).ok());
    absl::StatusOr<DrainCycleResult> result = w->run_once();
    ASSERT_TRUE(result.ok());
    EXPECT_EQ(result->failed, 0u);
    EXPECT_EQ(result->held_back, 1u);
    auto row = *store_->find_outbox_row(event.message_id);
    ASSERT_TRUE(row.has_value()) << "the event was taken as published";
    EXPECT_EQ(row->state.attempts, 0);
    EXPECT_FALSE(row->state.scheduled_for.has_value());
    recover();
    result = w->run_once();
    ASSERT_TRUE(result.ok());
    EXPECT_EQ(result->published, 1u);
  }
  void cycle(OutboxDrainWorker& w) {
    absl::StatusOr<DrainCycleResult> result = w.run_once();
    ASSERT_TRUE(result.ok()) << result.status();
  }

  ManualClock clock_;
  CapturedLogger log_;
  std::unique_ptr<MemoryWorkStore> store_;
  InProcessTransport transport_;
  // The service that consumes the commands these tests publish (commands need a consumer).
  std::unique_ptr<TransportSubscription> command_consumer_ =
      *transport_.subscribe("shipping", {{"inbox.store_test", ""}},
                            [](const TransportDestination&, std::span<const TransportMessage>) {
                              return absl::OkStatus();
                            });
  DeferredOutboxChannel channel_;
  const Uuid service_id_ = MessageId::mint().uuid();
};

TEST_F(OutboxDrainWorkerTests,
       OutboxDrainWorker_LocalServiceIdLookupFailsOnceAtStartup_ResolvesBeforeTheNextBatch) {
  int lookups = 0;
  auto w = worker([&]() -> Uuid {
    if (++lookups == 1) throw std::runtime_error("service registry not reachable");
    return service_id_;
  });
  EXPECT_EQ(lookups, 1);
  EXPECT_EQ(log_.sink->count(53, spdlog::level::warn), 1);
  EXPECT_EQ(log_.sink->count_any_level(50), 0) << "the throwing case does not double-log";
  store_one();
  cycle(*w);
  EXPECT_EQ(lookups, 2);
  EXPECT_EQ(w->source_service_id(), service_id_);
  EXPECT_EQ(log_.sink->count(51, spdlog::level::info), 1);
  EXPECT_EQ(last_published_source(), service_id_) << "resolved before the batch it stamps";
  store_one();
  cycle(*w);
  EXPECT_EQ(lookups, 2);
  EXPECT_EQ(last_published_source(), service_id_);
}

TEST_F(OutboxDrainWorkerTests,
       OutboxDrainWorker_LocalServiceIdResolvedAtStartup_DoesNotLookItUpAgain) {
  int lookups = 0;
  auto w = worker([&] {
    ++lookups;
    return service_id_;
  });
  EXPECT_EQ(log_.sink->count(51, spdlog::level::info), 1);
  for (int i = 0; i < 3; ++i) {
    store_one();
    cycle(*w);
    EXPECT_EQ(last_published_source(), service_id_);
  }
  EXPECT_EQ(lookups, 1);
  EXPECT_EQ(log_.sink->count_any_level(52), 0);
  EXPECT_EQ(log_.sink->count(51, spdlog::level::info), 1);
}

TEST_F(OutboxDrainWorkerTests,
       OutboxDrainWorker_LocalServiceIdEmptyAtStartup_WarnsAndRetriesBeforeEachBatch) {
  int lookups = 0;
  auto w = worker([&] { return ++lookups <= 3 ? Uuid() : service_id_; });
  EXPECT_EQ(log_.sink->count(50, spdlog::level::warn), 1);
  EXPECT_EQ(log_.sink->count_any_level(53), 0);
  store_one();
  cycle(*w);
  EXPECT_EQ(lookups, 2);
  EXPECT_TRUE(last_published_source().is_nil()) << "unresolved: published without ss";
  cycle(*w);
  EXPECT_EQ(lookups, 3);
  EXPECT_EQ(log_.sink->count(52, spdlog::level::debug), 2);
  store_one();
  cycle(*w);
  EXPECT_EQ(lookups, 4);
  EXPECT_EQ(log_.sink->count(51, spdlog::level::info), 1);
  EXPECT_EQ(last_published_source(), service_id_);
  cycle(*w);
  EXPECT_EQ(lookups, 4) << "never looked up again once resolved";
  EXPECT_EQ(log_.sink->count(50, spdlog::level::warn), 1);
}

TEST_F(OutboxDrainWorkerTests,
       OutboxDrainWorker_LocalServiceIdLookupKeepsFailing_RecordsEachRetryAtDebug) {
  int lookups = 0;
  auto w = worker([&]() -> Uuid {
    ++lookups;
    throw std::runtime_error("still down");
  });
  for (int i = 0; i < 3; ++i) cycle(*w);
  EXPECT_EQ(lookups, 4);
  EXPECT_EQ(log_.sink->count(52, spdlog::level::debug), 3);
  EXPECT_EQ(log_.sink->count(53, spdlog::level::warn), 1);
  EXPECT_EQ(log_.sink->count_any_level(50), 0);
  EXPECT_EQ(log_.sink->count_any_level(51), 0);
  for (const LogLine& line : log_.sink->lines()) {
    if (line.text.find("[EventId 52 ") != std::string::npos) {
      EXPECT_NE(line.text.find("still down"), std::string::npos) << line.text;
    }
  }
}

TEST_F(OutboxDrainWorkerTests, Scenario67_NullDestination_SkipsTheTransportAndCompletesPublished) {
  auto w = worker(nullptr);
  const Uuid stream = MessageId::mint().uuid();
  const OutboxMessage audit = outbox_message(AuditEvent{"x"}, std::nullopt, stream);
  ASSERT_TRUE(store_->store_outbox_messages({&audit, 1}).ok());
  absl::StatusOr<DrainCycleResult> result = w->run_once();
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->event_store_only, 1u);
  EXPECT_EQ(result->published, 0u);
  EXPECT_EQ(transport_.published_count(), 0u);
  EXPECT_FALSE(store_->find_outbox_row(audit.message_id)->has_value()) << "completed and deleted";
  EXPECT_EQ(store_->read_stream(stream)->size(), 1u) << "stored to the event store";
}

TEST_F(OutboxDrainWorkerTests,
       Scenario68_CommandsGoToTheirNamespaceInbox_EventsToTheirDestination) {
  auto w = worker(nullptr);
  const OutboxMessage command = outbox_message(ShipOrderCommand{"o"}, "shipping");
  const OutboxMessage event = outbox_message(OrderCreated{"o", 1}, "orders");
  ASSERT_TRUE(store_->store_outbox_messages(std::vector<OutboxMessage>{command, event}).ok());
  cycle(*w);
  auto published = transport_.published();
  ASSERT_EQ(published.size(), 2u);
  // Per-namespace command inboxes by default (docs/guide/13-rabbitmq.md, "Command inboxes").
  EXPECT_EQ(published[0].destination.address, "inbox.store_test");
  EXPECT_EQ(published[0].destination.routing_key, "store_test.shipordercommand");
  EXPECT_EQ(published[1].destination.address, "orders");
  EXPECT_EQ(published[1].destination.routing_key, "store_test.ordercreated");
  EXPECT_EQ(detect_wire_kind("Shop.Commands.Reserve"), WireKind::Command);
  EXPECT_EQ(detect_wire_kind("shop::events::Reserved"), WireKind::Event);
  EXPECT_EQ(detect_wire_kind("shop::OrderDeleted"), WireKind::Event);
  EXPECT_EQ(detect_wire_kind("shop::Thing"), WireKind::Unknown);
  EXPECT_EQ(routing_key_for("Shop::Outer+Inner"), "shop.outer+inner");
}

TEST_F(OutboxDrainWorkerTests, DeferredChannel_IsWrittenAndPublishedByTheNextCycle) {
  auto w = worker(nullptr);
  const OutboxMessage deferred = outbox_message(OrderCreated{"later", 1}, "orders");
  channel_.queue(deferred);
  absl::StatusOr<DrainCycleResult> result = w->run_once();
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->deferred_written, 1u);
  EXPECT_EQ(result->published, 1u);
  EXPECT_EQ(transport_.publish_count(deferred.message_id), 1u);
  EXPECT_FALSE(channel_.has_pending());
}

TEST_F(OutboxDrainWorkerTests, CorruptAndUnknownRows_AreQuarantinedAndTheWorkerGoesOn) {
  auto w = worker(nullptr);
  OutboxMessage corrupt = outbox_message(ShipOrderCommand{"a"}, "shipping");
  corrupt.envelope_json = "{not json";
  OutboxMessage unknown = outbox_message(ShipOrderCommand{"b"}, "shipping");
  const std::string needle = "store_test::ShipOrderCommand";
  unknown.envelope_json.replace(unknown.envelope_json.find(needle), needle.size(), "shop::Gone");
  const OutboxMessage good = outbox_message(ShipOrderCommand{"c"}, "shipping");
  ASSERT_TRUE(
      store_->store_outbox_messages(std::vector<OutboxMessage>{corrupt, unknown, good}).ok());
  absl::StatusOr<DrainCycleResult> result = w->run_once();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->quarantined, 2u);
  EXPECT_EQ(result->published, 1u);
  EXPECT_EQ(transport_.publish_count(good.message_id), 1u);
  EXPECT_EQ(log_.sink->count(111, spdlog::level::warn), 2);
  for (const OutboxMessage* bad : {&corrupt, &unknown}) {
    auto row = store_->find_outbox_row(bad->message_id);
    ASSERT_TRUE(row.ok() && row->has_value());
    EXPECT_TRUE(has_status((*row)->state.status, MessageStatus::Failed));
    EXPECT_EQ((*row)->state.failure_reason, FailureReason::SerializationError);
    EXPECT_FALSE((*row)->state.error.empty());
  }
  EXPECT_NE((*store_->find_outbox_row(unknown.message_id))->state.error.find("shop::Gone"),
            std::string::npos);
  clock_.advance(1h);
  result = w->run_once();
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->quarantined + result->published, 0u) << "quarantined rows stay put";
}

TEST_F(OutboxDrainWorkerTests, TransportFailure_RecordsAFailureWithBackoff) {
  auto w = worker(nullptr);
  const OutboxMessage event = outbox_message(OrderCreated{"o", 1}, "orders");
  ASSERT_TRUE(store_->store_outbox_messages({&event, 1}).ok());
  transport_.fail_publishes(absl::UnavailableError("broker down"));
  absl::StatusOr<DrainCycleResult> result = w->run_once();
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->failed, 1u);
  auto row = *store_->find_outbox_row(event.message_id);
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row->state.attempts, 1);
  EXPECT_EQ(row->state.scheduled_for, clock_.now() + 60s);
  transport_.fail_publishes(absl::OkStatus());
  clock_.advance(61s);
  result = w->run_once();
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->published, 1u);
}

// The fakes below change how publishing goes, never who subscribes.
using test_support::ForwardingTransport;

// A broker connection that drops under a publish: the publish fails and the transport is then
// not ready until it reconnects.
class DroppingTransport final : public ForwardingTransport {
 public:
  using ForwardingTransport::ForwardingTransport;
  absl::Status publish(const TransportDestination& destination,
                       std::span<const TransportMessage> batch) override {
    if (drop_next_) {
      drop_next_ = false;
      ready_ = false;
      return absl::UnavailableError("connection reset by peer");
    }
    return ForwardingTransport::publish(destination, batch);
  }
  bool is_ready() const override { return ready_; }

  bool drop_next_ = true;
  bool ready_ = true;
};

TEST_F(OutboxDrainWorkerTests, ConnectionLostUnderThePublish_RowsWaitWithoutAnAttemptOrBackoff) {
  DroppingTransport dropping(transport_);
  // Reconnected: the next cycle publishes it, no backoff to wait out.
  expect_kept_without_an_attempt_then_published(dropping, [&] { dropping.ready_ = true; });
}

// A broker moments after a restart: it returns what it has no binding for yet.
class SettlingTransport final : public ForwardingTransport {
 public:
  using ForwardingTransport::ForwardingTransport;
  absl::Status publish(const TransportDestination& destination,
                       std::span<const TransportMessage> batch) override {
    if (settling_) return mark_transport_settling(absl::UnavailableError("returned: no route"));
    return ForwardingTransport::publish(destination, batch);
  }

  bool settling_ = true;
};

TEST_F(OutboxDrainWorkerTests, PublishReturnedWhileTheBrokerSettles_RowsWaitWithoutAnAttempt) {
  SettlingTransport settling(transport_);
  // The bindings are back: the next cycle publishes it, no backoff to wait out.
  expect_kept_without_an_attempt_then_published(settling, [&] { settling.settling_ = false; });
}

// A transport whose publish runs `during` first: what happens elsewhere while a publish is slow.
class SlowTransport final : public ForwardingTransport {
 public:
  using ForwardingTransport::ForwardingTransport;
  absl::Status publish(const TransportDestination& destination,
                       std::span<const TransportMessage> batch) override {
    if (auto run = std::exchange(during_, nullptr)) run();
    return ForwardingTransport::publish(destination, batch);
  }

  std::function<void()> during_;
};

// An event is in its stream before it leaves: a service that hears of it may answer at once,
// and the answer, appended to the same stream here, must come after it.
TEST_F(OutboxDrainWorkerTests, Event_InItsStreamBeforeItIsPublished) {
  SlowTransport spying(transport_);
  auto w = worker(nullptr, &spying);
  const Uuid stream = MessageId::mint().uuid();
  const OutboxMessage event = outbox_message(OrderCreated{"o", 1}, "orders", stream);
  ASSERT_TRUE(store_->store_outbox_messages({&event, 1}).ok());
  std::vector<MessageId> in_stream_during_publish;
  spying.during_ = [&] {
    auto events = store_->read_stream(stream);
    ASSERT_TRUE(events.ok()) << events.status();
    for (const StoredEvent& stored : *events) in_stream_during_publish.push_back(stored.event_id);
  };
  cycle(*w);
  EXPECT_THAT(in_stream_during_publish, testing::ElementsAre(event.message_id));
  auto events = store_->read_stream(stream);
  ASSERT_TRUE(events.ok()) << events.status();
  EXPECT_EQ(events->size(), 1u) << "appended once";
  EXPECT_FALSE(store_->find_outbox_row(event.message_id)->has_value()) << "published, completed";
}

// A failed publish leaves the row for its retry; its event is in its stream all the same (the
// claim put it there), so the stream's later events keep their order behind it.
TEST_F(OutboxDrainWorkerTests, Event_PublishFailed_InItsStreamAllTheSame) {
  auto w = worker(nullptr);
  const Uuid stream = MessageId::mint().uuid();
  const OutboxMessage event = outbox_message(OrderCreated{"o", 1}, "orders", stream);
  ASSERT_TRUE(store_->store_outbox_messages({&event, 1}).ok());
  transport_.fail_publishes(absl::UnavailableError("broker down"));
  cycle(*w);
  auto events = store_->read_stream(stream);
  ASSERT_TRUE(events.ok()) << events.status();
  EXPECT_EQ(events->size(), 1u);
  auto row = *store_->find_outbox_row(event.message_id);
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row->state.attempts, 1);
  EXPECT_TRUE(has_status(row->state.status, MessageStatus::EventStored));
  transport_.fail_publishes(absl::OkStatus());
  clock_.advance(61s);
  cycle(*w);
  EXPECT_EQ(transport_.publish_count(event.message_id), 1u);
  events = store_->read_stream(stream);
  ASSERT_TRUE(events.ok());
  EXPECT_EQ(events->size(), 1u) << "appended once";
}

// A corrupt event row is quarantined once, by the claim that cannot append it (the cycle never
// sees it), and nothing is appended.
TEST_F(OutboxDrainWorkerTests, CorruptEventRow_QuarantinedOnce_NothingAppended) {
  auto w = worker(nullptr);
  const Uuid stream = MessageId::mint().uuid();
  OutboxMessage corrupt = outbox_message(OrderCreated{"bad", 1}, "orders", stream);
  corrupt.envelope_json = "{not json";
  ASSERT_TRUE(store_->store_outbox_messages({&corrupt, 1}).ok());
  absl::StatusOr<DrainCycleResult> result = w->run_once();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->published, 0u);
  EXPECT_EQ(log_.sink->count(111, spdlog::level::warn), 1) << "one warning for one row";
  auto row = store_->find_outbox_row(corrupt.message_id);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_TRUE((*row)->state.dead_lettered_at.has_value());
  auto events = store_->read_stream(stream);
  ASSERT_TRUE(events.ok());
  EXPECT_TRUE(events->empty());
}

// Two instances of one service on one SQLite file. A's publish outlasts its lease (a broker
// stopping under it): B takes the row over, publishes it and fires its PostOutbox stages. When
// A's publish returns, the row is no longer A's: A fires nothing and records nothing for it.
TEST(OutboxDrainLeaseTests, PublishOutlastingTheLease_TheNewOwnerAloneFiresThePostOutboxStages) {
  whizbang_test::TempDir dir;
  ManualClock clock;
  auto open = [&](const char* name) {
    StoreOptions options;
    options.instance = instance("orders");
    options.now = clock.fn();
    options.lease_duration = 30s;
    auto store = SqliteWorkStore::open(dir.file("orders.db"), options);
    EXPECT_TRUE(store.ok()) << name << ": " << store.status();
    return *std::move(store);
  };
  std::unique_ptr<WorkStore> a_store = open("A");
  std::unique_ptr<WorkStore> b_store = open("B");
  InProcessTransport transport;
  SlowTransport slow(transport);
  std::map<std::string, int> fired;  // instance -> PostOutboxInline stages fired
  auto worker = [&](WorkStore& store, Transport& via, std::string name) {
    OutboxDrainWorkerOptions options;
    options.lease_renewal_interval = 0ms;  // renewed whenever the worker checks
    options.lifecycle = [&fired, name](Envelope&, Stage stage) {
      if (stage == Stage::PostOutboxInline) ++fired[name];
      return absl::OkStatus();
    };
    return std::make_unique<OutboxDrainWorker>(store, via, resolve, options);
  };
  auto a = worker(*a_store, slow, "A");
  auto b = worker(*b_store, transport, "B");
  const OutboxMessage event = outbox_message(OrderCreated{"o", 1}, "orders");
  ASSERT_TRUE(a_store->store_outbox_messages({&event, 1}).ok());

  slow.during_ = [&] {
    clock.advance(31s);  // A's lease lapses mid-publish
    absl::StatusOr<DrainCycleResult> taken = b->run_once();
    ASSERT_TRUE(taken.ok()) << taken.status();
    EXPECT_EQ(taken->published, 1u);
  };
  absl::StatusOr<DrainCycleResult> result = a->run_once();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->lease_lost, 1u);
  EXPECT_EQ(result->published, 0u);
  EXPECT_EQ(fired["B"], 1);
  EXPECT_EQ(fired["A"], 0) << "the instance that lost the row fired its stage too";
}

TEST_F(OutboxDrainWorkerTests, CommandWithNoConsumerBound_StaysInTheOutboxUntilOneIs) {
  InProcessTransport nobody_listening;
  auto w = worker(nullptr, &nobody_listening);
  const OutboxMessage command = outbox_message(ShipOrderCommand{"s-1"}, "shipping");
  ASSERT_TRUE(store_->store_outbox_messages({&command, 1}).ok());
  absl::StatusOr<DrainCycleResult> result = w->run_once();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->failed, 1u);
  EXPECT_EQ(nobody_listening.published_count(), 0u);
  auto row = *store_->find_outbox_row(command.message_id);
  ASSERT_TRUE(row.has_value()) << "the command was dropped";
  EXPECT_NE(row->state.error.find("no subscription is bound"), std::string::npos);

  // Its service starts: the retry delivers it.
  int received = 0;
  auto subscription = *nobody_listening.subscribe(
      "shipping", {{"inbox.store_test", ""}},
      [&](const TransportDestination&, std::span<const TransportMessage> batch) {
        received += static_cast<int>(batch.size());
        return absl::OkStatus();
      });
  clock_.advance(61s);
  result = w->run_once();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->published, 1u);
  EXPECT_EQ(received, 1);
}

TEST_F(OutboxDrainWorkerTests, EventWithNoSubscriber_IsPublishedAndDropped) {
  InProcessTransport nobody_listening;
  auto w = worker(nullptr, &nobody_listening);
  store_one();
  absl::StatusOr<DrainCycleResult> result = w->run_once();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->published, 1u);
  EXPECT_EQ(result->failed, 0u);
}

// What a subscriber to "orders" received: one entry per transport call.
struct Delivery {
  TransportDestination destination;
  std::vector<MessageId> ids;
};

TEST_F(OutboxDrainWorkerTests, RowsOfManyStreams_OneTransportCallPerDestination_InClaimOrder) {
  std::vector<Delivery> deliveries;
  auto subscription = *transport_.subscribe(
      "billing", {{"orders", ""}},
      [&](const TransportDestination& destination, std::span<const TransportMessage> batch) {
        Delivery delivery{destination, {}};
        for (const TransportMessage& message : batch) delivery.ids.push_back(message.message_id);
        deliveries.push_back(std::move(delivery));
        return absl::OkStatus();
      });
  std::vector<MessageId> stored;
  const Uuid streams[] = {MessageId::mint().uuid(), MessageId::mint().uuid()};
  for (int i = 0; i < 4; ++i) {
    const OutboxMessage message = outbox_message(OrderCreated{"o", i}, "orders", streams[i % 2]);
    ASSERT_TRUE(store_->store_outbox_messages({&message, 1}).ok());
    stored.push_back(message.message_id);
  }
  auto w = worker(nullptr);
  cycle(*w);
  ASSERT_EQ(deliveries.size(), 1u) << "one call for the two streams";
  EXPECT_EQ(deliveries[0].ids, stored);
  EXPECT_FALSE(deliveries[0].destination.metadata.contains("StreamId"))
      << "the call holds two streams: its destination names none";

  // One stream alone: the destination still names it.
  const OutboxMessage alone = outbox_message(OrderCreated{"o", 9}, "orders", streams[0]);
  ASSERT_TRUE(store_->store_outbox_messages({&alone, 1}).ok());
  cycle(*w);
  ASSERT_EQ(deliveries.size(), 2u);
  EXPECT_EQ(deliveries[1].destination.metadata["StreamId"], streams[0].to_string());
}

TEST_F(OutboxDrainWorkerTests, StreamWithAlternatingDestinations_LeavesInClaimOrder) {
  std::vector<MessageId> received;  // by either subscriber, in arrival order
  auto record = [&](const TransportDestination&, std::span<const TransportMessage> batch) {
    for (const TransportMessage& message : batch) received.push_back(message.message_id);
    return absl::OkStatus();
  };
  auto orders = *transport_.subscribe("billing", {{"orders", ""}}, record);
  auto audit = *transport_.subscribe("auditing", {{"audit", ""}}, record);
  const Uuid stream = MessageId::mint().uuid();
  std::vector<MessageId> stored;
  for (const char* destination : {"orders", "audit", "orders"}) {
    const OutboxMessage message = outbox_message(OrderCreated{"o", 1}, destination, stream);
    ASSERT_TRUE(store_->store_outbox_messages({&message, 1}).ok());
    stored.push_back(message.message_id);
  }
  auto w = worker(nullptr);
  cycle(*w);
  EXPECT_EQ(received, stored) << "the third row may not join the first one's call";
}

}  // namespace
}  // namespace store_test
