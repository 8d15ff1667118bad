// A sender on the broker against a service on PostgreSQL or SQLite (docs/guide/16-security.md,
// "What a sender on the broker can and cannot do"), over the run's broker and server; on SQLite
// the inbox handles each batch on delivery, as a host does there. Each attack is
// what a raw AMQP client publishes; each must end in the queue's dead letters with its reason
// while the message published after it is handled. Before the inbox's door, one invalid byte
// made PostgreSQL refuse the batch, which came back with requeue forever, and nothing behind it
// was ever handled; a signed envelope re-published under another message id took that id.
#include <gtest/gtest.h>
#include <whizbang/store/postgres/postgres_work_store.hpp>
#include <whizbang/store/sqlite/sqlite_work_store.hpp>
#include <whizbang/transport/rabbitmq/rabbitmq_topology.hpp>
#include <whizbang/transport/rabbitmq/rabbitmq_transport.hpp>
#include <whizbang/workers/inbox_worker.hpp>

#include <sqlite3.h>

#include <condition_variable>
#include <mutex>
#include <set>

#include "store/store_test_support.hpp"
#include "support/log_capture.hpp"
#include "support/postgres_schema.hpp"
#include "support/rabbitmq_broker.hpp"
#include "support/temp_dir.hpp"

namespace whizbang::test {
namespace {

using std::chrono::seconds;

SigningKeyRing keys() { return *SigningKeyRing::create({{"k1", std::string(32, 'k')}}); }

enum class Backend { Postgres, Sqlite };

class HostileDeliveryTests : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::Postgres) {
      conninfo_ = whizbang_test::fresh_postgres_schema();
      ASSERT_FALSE(conninfo_.empty());
      auto store = PostgresWorkStore::open(conninfo_, StoreOptions{});
      ASSERT_TRUE(store.ok()) << store.status();
      store_ = *std::move(store);
    } else {
      auto store = SqliteWorkStore::open(dir_.file("store.db"), StoreOptions{});
      ASSERT_TRUE(store.ok()) << store.status();
      store_ = *std::move(store);
    }
    rabbitmq_ = test_rabbitmq_options();
    rabbitmq_.logger = log_.logger;
    transport_ = std::make_unique<RabbitMqTransport>(rabbitmq_);
  }
  void TearDown() override {
    subscription_.reset();
    if (worker_) worker_->stop();
  }

  void start_service(EnvelopeSigningMode signing = EnvelopeSigningMode::Off) {
    InboxWorkerOptions options;
    options.service_name = service_;
    options.bindings = {{events_, ""}};
    options.poll_interval = std::chrono::milliseconds(200);
    options.signing = {signing, keys()};
    options.metrics = metrics_;
    options.logger = log_.logger;
    options.handle_on_delivery = GetParam() == Backend::Sqlite;
    worker_ = std::make_unique<InboxWorker>(
        *store_, store_test::resolve,
        [this](InboxHandling& handling) {
          std::lock_guard lock(mutex_);
          handled_.insert(handling.envelope.message_id);
          changed_.notify_all();
          return absl::OkStatus();
        },
        options);
    auto subscription = worker_->subscribe(*transport_);
    ASSERT_TRUE(subscription.ok()) << subscription.status();
    subscription_ = *std::move(subscription);
    worker_->start();
  }

  bool handled(const MessageId& id) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, seconds(20), [&] { return handled_.contains(id); });
  }
  // The good message, published after an attack, is handled.
  TransportMessage publish_a_good_one() {
    const TransportMessage good = store_test::transport_message(
        store_test::outbox_message(store_test::OrderCreated{"o-good", 1}, "orders"));
    EXPECT_TRUE(transport_->publish({events_, "store_test.ordercreated", {}}, {&good, 1}).ok());
    return good;
  }
  std::optional<RawMessage> dead_letter() {
    return RawAmqp(rabbitmq_).consume_one(rabbitmq_queue_name(service_, events_) + ".dlq",
                                          seconds(20));
  }
  // A trigger that makes the database refuse to deduplicate (so to store) message `id`.
  void refuse_in_the_database(const MessageId& id) {
    if (GetParam() == Backend::Postgres) {
      ASSERT_TRUE(whizbang_test::postgres_admin(
          conninfo_,
          "CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
          "IF NEW.message_id = '" +
              id.to_string() +
              "' THEN RAISE EXCEPTION 'this row cannot be stored'; END IF; RETURN NEW; END $$; "
              "CREATE TRIGGER refuse_poison BEFORE INSERT ON wh_message_deduplication "
              "FOR EACH ROW EXECUTE FUNCTION refuse_poison()"));
      return;
    }
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(dir_.file("store.db").c_str(), &db), SQLITE_OK);
    const std::string sql =
        "CREATE TRIGGER refuse_poison BEFORE INSERT ON wh_message_deduplication "
        "WHEN NEW.message_id = X'" +
        id.to_n_string() + "' BEGIN SELECT RAISE(ABORT, 'this row cannot be stored'); END";
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
        << (error != nullptr ? error : "");
    sqlite3_free(error);
    sqlite3_close(db);
  }
  bool publish_raw(const std::string& body, std::map<std::string, std::string> properties) {
    return RawAmqp(rabbitmq_).publish(events_, "store_test.ordercreated", body, properties, {});
  }

  whizbang_test::TempDir dir_;
  std::string conninfo_;
  std::string events_ = unique_name("shop.events");
  std::string service_ = unique_name("shipping");
  whizbang_test::LogCapture log_;
  std::shared_ptr<InMemoryMetrics> metrics_ = std::make_shared<InMemoryMetrics>();
  RabbitMqOptions rabbitmq_;
  std::unique_ptr<WorkStore> store_;
  std::unique_ptr<RabbitMqTransport> transport_;
  std::unique_ptr<InboxWorker> worker_;
  std::unique_ptr<TransportSubscription> subscription_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::set<MessageId> handled_;
};

TransportMessage order(std::string id) {
  return store_test::transport_message(
      store_test::outbox_message(store_test::OrderCreated{std::move(id), 1}, "orders"));
}

std::map<std::string, std::string> properties_of(const TransportMessage& message) {
  return {{"message_id", message.message_id.to_string()}, {"type", message.message_type}};
}

TEST_P(HostileDeliveryTests, InvalidUtf8InTheBody_ToTheDeadLetterQueue_TheNextOneHandled) {
  start_service();
  TransportMessage bad = order("o-1");
  bad.envelope_json.replace(bad.envelope_json.find("o-1"), 3, "o-\xff");
  ASSERT_TRUE(publish_raw(bad.envelope_json, properties_of(bad)));
  const TransportMessage good = publish_a_good_one();
  EXPECT_TRUE(handled(good.message_id));
  std::optional<RawMessage> dead = dead_letter();
  ASSERT_TRUE(dead.has_value());
  EXPECT_EQ(dead->body, bad.envelope_json) << "kept byte for byte";
  EXPECT_EQ(log_.count("[EventId 152 TransportDeliveryRejected]"), 1);
  EXPECT_EQ(metrics_->counter(metric_names::kWorkCoordinatorMeter,
                              metric_names::kInboxDeliveryRefused, {{"reason", "malformed"}}),
            1);
}

TEST_P(HostileDeliveryTests, InvalidUtf8TypeProperty_ToTheDeadLetterQueue_TheNextOneHandled) {
  start_service();
  const TransportMessage bad = order("o-1");
  std::map<std::string, std::string> properties = properties_of(bad);
  properties["type"] += "\xff\x1b";
  ASSERT_TRUE(publish_raw(bad.envelope_json, properties));
  const TransportMessage good = publish_a_good_one();
  EXPECT_TRUE(handled(good.message_id));
  ASSERT_TRUE(dead_letter().has_value());
}

// A NUL cut the envelope short on PostgreSQL (its text parameters end at one), and what was left
// was refused as "unsigned".
TEST_P(HostileDeliveryTests, RawNulInTheBody_RefusedAsMalformed_NotCutShort) {
  start_service(EnvelopeSigningMode::Require);
  TransportMessage bad = order("o-1");
  ASSERT_TRUE(sign_envelope_json(bad.envelope_json, keys()).ok());
  bad.envelope_json.replace(bad.envelope_json.find("o-1"), 3, std::string("o-\0", 3));
  ASSERT_TRUE(publish_raw(bad.envelope_json, properties_of(bad)));
  ASSERT_TRUE(dead_letter().has_value());
  EXPECT_EQ(log_.count("unsigned"), 0);
  EXPECT_EQ(log_.count("not well-formed"), 2) << "the inbox's line and the transport's";
}

// The replay: a genuine signed envelope published again under the message id of a message still
// to come. It must not take that id: the genuine message of that id is handled when it comes.
TEST_P(HostileDeliveryTests, SignedEnvelopeUnderAnotherMessageId_DoesNotStealThatId) {
  start_service(EnvelopeSigningMode::Require);
  TransportMessage earlier = order("o-1");
  TransportMessage coming = order("o-2");
  ASSERT_TRUE(sign_envelope_json(earlier.envelope_json, keys()).ok());
  ASSERT_TRUE(sign_envelope_json(coming.envelope_json, keys()).ok());
  std::map<std::string, std::string> replayed = properties_of(earlier);
  replayed["message_id"] = coming.message_id.to_string();
  ASSERT_TRUE(publish_raw(earlier.envelope_json, replayed));
  std::optional<RawMessage> dead = dead_letter();
  ASSERT_TRUE(dead.has_value());
  EXPECT_EQ(dead->properties["message_id"], coming.message_id.to_string());
  EXPECT_EQ(log_.count("was delivered as message"), 2) << "the inbox's line and the transport's";

  ASSERT_TRUE(publish_raw(coming.envelope_json, properties_of(coming)));
  EXPECT_TRUE(handled(coming.message_id));
}

// A version 4 id was refused as "has no message id".
TEST_P(HostileDeliveryTests, MessageIdThatIsNotAUuidV7_RefusedSayingWhy) {
  start_service();
  const TransportMessage message = order("o-1");
  std::map<std::string, std::string> properties = properties_of(message);
  properties["message_id"] = "1b4e28ba-2fa1-41d2-883f-0016d3cca427";
  ASSERT_TRUE(publish_raw(message.envelope_json, properties));
  ASSERT_TRUE(dead_letter().has_value());
  EXPECT_EQ(log_.count("has no message id"), 0);
  EXPECT_EQ(log_.count("is not a message id"), 1);
  EXPECT_EQ(log_.count("version 4"), 1);
}

// A message the database itself keeps refusing (here a trigger on the inbox's deduplication
// table; in the field a value the database will not take): dead-lettered after its tries, and
// the message behind it is handled at once.
TEST_P(HostileDeliveryTests, MessageTheDatabaseKeepsRefusing_DeadLetteredAfterItsTries) {
  const TransportMessage poison = order("o-poison");
  refuse_in_the_database(poison.message_id);
  start_service();
  ASSERT_TRUE(publish_raw(poison.envelope_json, properties_of(poison)));
  const TransportMessage good = publish_a_good_one();
  EXPECT_TRUE(handled(good.message_id));
  std::optional<RawMessage> dead = dead_letter();
  ASSERT_TRUE(dead.has_value());
  EXPECT_EQ(dead->properties["message_id"], poison.message_id.to_string());
  EXPECT_EQ(metrics_->counter(metric_names::kWorkCoordinatorMeter,
                              metric_names::kInboxDeliveryRefused, {{"reason", "unstorable"}}),
            1);
}

INSTANTIATE_TEST_SUITE_P(Stores, HostileDeliveryTests,
                         ::testing::Values(Backend::Postgres, Backend::Sqlite),
                         [](const ::testing::TestParamInfo<Backend>& backend) {
                           return backend.param == Backend::Postgres ? "Postgres" : "Sqlite";
                         });

}  // namespace
}  // namespace whizbang::test
