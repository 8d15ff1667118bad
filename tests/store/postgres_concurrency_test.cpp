// What PostgreSQL adds to the store contract: several instances, each with its own connection,
// working one database at once (docs/guide/06-stores-and-workers.md).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "store_test_support.hpp"
#include "support/postgres_schema.hpp"
#include "whizbang/store/postgres/postgres_work_store.hpp"
#include "whizbang/store/sql_session.hpp"
#include "whizbang/workers/inbox_worker.hpp"

namespace store_test {
namespace {

using namespace whizbang;
using namespace std::chrono_literals;

class PostgresConcurrencyTests : public ::testing::Test {
 protected:
  void SetUp() override {
    conninfo_ = whizbang_test::fresh_postgres_schema();
    ASSERT_FALSE(conninfo_.empty());
  }

  std::unique_ptr<PostgresWorkStore> open_instance(const std::string& service = "orders") {
    StoreOptions options;
    options.instance = instance(service);
    auto store = PostgresWorkStore::open(conninfo_, std::move(options));
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  // Connections of this database waiting for a lock, as the server sees them.
  long lock_waiters() {
    return whizbang_test::postgres_scalar(
        conninfo_,
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
        "AND datname = current_database()");
  }

  std::string conninfo_;
};

// A handling retried on instance B re-emits the id that instance A is publishing right now:
// A's completion (row deleted, id marked published) is not yet committed when B's insert runs.
// Every emitted id passes one unique index, so B's insert is a counted no-op whether it runs
// before, during or after A's commit. (Checked with NOT EXISTS against a tombstone instead, B
// waits for the deleted row, then inserts the id again once A commits: published twice.)
TEST_F(PostgresConcurrencyTests, ReemissionRacingCompletion_NeverStoresThePublishedIdAgain) {
  auto publisher = open_instance();
  auto retrier = open_instance();
  ASSERT_TRUE(publisher && retrier);
  for (int round = 0; round < 20; ++round) {
    SCOPED_TRACE(round);
    const OutboxMessage message = outbox_message(OrderCreated{"o-1", round}, "orders");
    ASSERT_TRUE(publisher->store_outbox_messages({&message, 1}).ok());

    Transaction completion(*publisher);
    ASSERT_TRUE(completion.status().ok());
    const WorkCompletion published{WorkSource::Outbox, message.message_id,
                                   MessageStatus::Stored | MessageStatus::Published};
    ASSERT_TRUE(publisher->complete_work({&published, 1}, {}).ok());

    std::atomic<bool> stored{false};
    absl::StatusOr<std::vector<StoredOutboxRow>> again;
    std::thread reemission([&] {
      again = retrier->store_outbox_messages({&message, 1});
      stored = true;
    });
    // Commit once the re-emission has either finished or is blocked on the completion's locks:
    // the moment the race is about.
    while (!stored && lock_waiters() == 0) std::this_thread::yield();
    ASSERT_TRUE(completion.commit().ok());
    reemission.join();

    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_FALSE((*again)[0].was_newly_created);
    auto row = publisher->find_outbox_row(message.message_id);
    ASSERT_TRUE(row.ok());
    EXPECT_FALSE(row->has_value()) << "the published id is back in the outbox";
  }
}

// A perspective model loaded inside a transaction is held until the commit: an instance whose
// lease lapsed while it applied an event, and one that claimed the stream's next event, cannot
// both start from the same stored model (the later save would drop the other's event). The
// model need not exist yet: the first event of a stream is held as well.
TEST_F(PostgresConcurrencyTests, ModelLoadedInATransaction_IsHeldUntilItCommits) {
  auto first = open_instance();
  auto second = open_instance();
  ASSERT_TRUE(first && second);
  const Uuid stream = MessageId::mint().uuid();
  for (const std::string saved : {R"({"shipped":0})", R"({"shipped":1})"}) {
    SCOPED_TRACE(saved);
    Transaction applying(*first);
    ASSERT_TRUE(applying.status().ok());
    ASSERT_TRUE(first->load_perspective_model("OrderBook", stream).ok());
    ASSERT_TRUE(first->save_perspective_model("OrderBook", stream, saved, MessageId::mint()).ok());

    std::atomic<bool> loaded{false};
    absl::StatusOr<std::optional<PerspectiveModelRow>> seen;
    std::thread other([&] {
      Transaction next(*second);
      seen = second->load_perspective_model("OrderBook", stream);
      loaded = true;
    });
    // Commit once the other load has either returned or waits for this transaction.
    while (!loaded && lock_waiters() == 0) std::this_thread::yield();
    ASSERT_TRUE(applying.commit().ok());
    other.join();

    ASSERT_TRUE(seen.ok()) << seen.status();
    ASSERT_TRUE(seen->has_value()) << "the other instance loaded the model before its first save";
    EXPECT_EQ((*seen)->model_json, saved) << "the other instance loaded a model being replaced";
  }
}

// Four instances claim from one inbox at once: every row is handled by exactly one of them, and
// each stream's rows in message-id order.
TEST_F(PostgresConcurrencyTests, FourInstances_EveryRowHandledOnce_StreamOrderKept) {
  constexpr int kInstances = 4;
  constexpr int kStreams = 20;
  constexpr int kPerStream = 20;
  constexpr int kRows = kStreams * kPerStream;
  std::vector<std::unique_ptr<PostgresWorkStore>> stores;
  for (int i = 0; i < kInstances; ++i) stores.push_back(open_instance());
  for (const auto& store : stores) {
    ASSERT_NE(store, nullptr);
  }

  std::vector<Uuid> streams;
  for (int s = 0; s < kStreams; ++s) streams.push_back(MessageId::mint().uuid());
  std::vector<InboxMessage> rows;
  for (int n = 0; n < kPerStream; ++n) {
    for (const Uuid& stream : streams) {
      InboxMessage message = inbox_message(outbox_message(ShipOrderCommand{"o"}, "orders", stream));
      rows.push_back(std::move(message));
    }
  }
  ASSERT_TRUE(stores[0]->store_inbox_messages(rows, MessageId::mint().uuid()).ok());

  std::mutex journal_mutex;
  std::map<MessageId, int> handled_count;
  std::map<Uuid, std::vector<MessageId>> handled_order;  // per stream, in handling order
  std::atomic<int> handled{0};
  std::atomic<bool> failed{false};
  auto worker = [&](WorkStore& store) {
    std::vector<WorkCompletion> completions;
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (handled < kRows && std::chrono::steady_clock::now() < deadline) {
      WorkBatchRequest request;
      request.claim_outbox = false;
      request.max_items = 7;
      request.completions = std::move(completions);
      completions.clear();
      absl::StatusOr<std::vector<WorkItem>> items = store.process_work_batch(request);
      if (!items.ok()) {
        // Another instance's transaction won a lock race: the batch rolled back whole, and its
        // completions are repeated in the next one.
        if (absl::IsUnavailable(items.status())) {
          completions = std::move(request.completions);
          continue;
        }
        ADD_FAILURE() << items.status();
        failed = true;
        return;
      }
      for (const WorkItem& item : *items) {
        {
          std::lock_guard lock(journal_mutex);
          ++handled_count[item.message_id];
          handled_order[*item.stream_id].push_back(item.message_id);
        }
        completions.push_back({WorkSource::Inbox, item.message_id, MessageStatus::EventStored});
      }
      handled += static_cast<int>(items->size());
      if (items->empty()) std::this_thread::yield();
    }
    if (!completions.empty()) {
      EXPECT_TRUE(store.complete_work(completions, {}).ok());
    }
  };
  std::vector<std::thread> threads;
  for (const auto& store : stores) threads.emplace_back(worker, std::ref(*store));
  for (std::thread& thread : threads) thread.join();

  ASSERT_FALSE(failed);
  EXPECT_EQ(handled.load(), kRows);
  ASSERT_EQ(handled_count.size(), static_cast<std::size_t>(kRows));
  for (const auto& [id, count] : handled_count) {
    EXPECT_EQ(count, 1) << id.uuid().to_string();
  }
  for (const auto& [stream, order] : handled_order) {
    EXPECT_TRUE(std::is_sorted(order.begin(), order.end())) << stream.to_string();
  }
}

TEST_F(PostgresConcurrencyTests, ManyInstancesOpeningANewSchemaAtOnce_MigrateItOnce) {
  std::vector<std::thread> threads;
  std::atomic<int> opened{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      if (open_instance() != nullptr) ++opened;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(opened.load(), 8);
  auto store = open_instance();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->schema_version(), PostgresWorkStore::latest_schema_version());
}

// A service's own schema on a shared database, named by its conninfo's search_path and not
// created by anyone beforehand: the first instances to open create it, once.
TEST_F(PostgresConcurrencyTests, InstancesOpeningASchemaThatDoesNotExistYet_CreateItOnce) {
  const std::string schema = "absent_" + std::to_string(::getpid());
  const std::string conninfo =
      whizbang_test::with_search_path(whizbang_test::postgres_conninfo(), schema);
  std::vector<std::thread> threads;
  std::atomic<int> opened{0};
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      auto store = PostgresWorkStore::open(conninfo);
      EXPECT_TRUE(store.ok()) << store.status();
      if (store.ok()) ++opened;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(opened.load(), 4);

  EXPECT_EQ(whizbang_test::postgres_scalar(
                conninfo,
                "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() "
                "AND tablename = 'wh_outbox'"),
            1);
  (void)whizbang_test::postgres_admin(whizbang_test::postgres_conninfo(),
                                      "DROP SCHEMA " + schema + " CASCADE");
}

TEST_F(PostgresConcurrencyTests, UnreachableServer_IsUnavailableAndNamesNoPassword) {
  auto store = PostgresWorkStore::open(
      "host=/nonexistent-whizbang dbname=nowhere user=nobody password=s3cret connect_timeout=2");
  ASSERT_FALSE(store.ok());
  EXPECT_TRUE(absl::IsUnavailable(store.status())) << store.status();
  EXPECT_EQ(std::string(store.status().message()).find("s3cret"), std::string::npos);
}

// A worker of one process sleeps until the store tells it about new work; work committed by
// another process reaches it through LISTEN/NOTIFY, without waiting for its next poll.
TEST_F(PostgresConcurrencyTests, CommitInAnotherProcess_WakesThisProcessesListeners) {
  auto sender = open_instance();
  auto receiver = open_instance();
  ASSERT_TRUE(sender && receiver);
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<CommitInfo> heard;
  const int id = receiver->add_commit_listener([&](const CommitInfo& info) {
    std::lock_guard lock(mutex);
    heard.push_back(info);
    changed.notify_all();
  });
  auto wait_for = [&](std::size_t count) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, 30s, [&] { return heard.size() >= count; });
  };
  // Subscribed when add_commit_listener returns: every later commit is heard.
  const InboxMessage message = inbox_message(outbox_message(ShipOrderCommand{"o-1"}, "orders"));
  ASSERT_TRUE(sender->store_inbox_messages({&message, 1}, MessageId::mint().uuid()).ok());
  ASSERT_TRUE(wait_for(1));
  {
    std::lock_guard lock(mutex);
    EXPECT_TRUE(heard[0].inbox_written);
    EXPECT_FALSE(heard[0].outbox_written);
  }
  // The receiver's own commits wake it directly, once: its listener skips their notification.
  const OutboxMessage own = outbox_message(OrderCreated{"o-2", 1}, "orders");
  ASSERT_TRUE(receiver->store_outbox_messages({&own, 1}).ok());
  ASSERT_TRUE(wait_for(2));
  const OutboxMessage from_sender = outbox_message(OrderCreated{"o-3", 1}, "orders");
  ASSERT_TRUE(sender->store_outbox_messages({&from_sender, 1}).ok());
  ASSERT_TRUE(wait_for(3));
  receiver->remove_commit_listener(id);
  std::lock_guard lock(mutex);
  ASSERT_EQ(heard.size(), 3u);
  EXPECT_TRUE(heard[1].outbox_written);
  EXPECT_TRUE(heard[2].outbox_written);
}

// The same with four worker processes (tests/store/postgres_claim_worker.cpp), each with its own
// store and connection: every row is journaled once, each stream in message-id order.
TEST_F(PostgresConcurrencyTests, FourProcesses_EveryRowHandledOnce_StreamOrderKept) {
  constexpr int kStreams = 20;
  constexpr int kPerStream = 20;
  auto loader = open_instance();
  ASSERT_NE(loader, nullptr);
  std::vector<Uuid> streams;
  for (int s = 0; s < kStreams; ++s) streams.push_back(MessageId::mint().uuid());
  std::vector<InboxMessage> rows;
  for (int n = 0; n < kPerStream; ++n) {
    for (const Uuid& stream : streams) {
      rows.push_back(inbox_message(outbox_message(ShipOrderCommand{"o"}, "orders", stream)));
    }
  }
  ASSERT_TRUE(loader->store_inbox_messages(rows, MessageId::mint().uuid()).ok());
  ASSERT_TRUE(whizbang_test::postgres_admin(
      conninfo_,
      "CREATE TABLE wh_test_journal (seq bigserial PRIMARY KEY, message_id uuid NOT NULL, "
      "stream_id uuid NOT NULL, instance uuid NOT NULL)"));

  // Each worker says when it is connected (a byte on its stdout) and starts claiming when told (a
  // byte on its stdin): all four start together, however long each took to start.
  std::vector<pid_t> workers;
  std::vector<int> ready_pipes;
  std::vector<int> go_pipes;
  for (int i = 0; i < 4; ++i) {
    int ready[2];
    int go[2];
    // Closed on exec: a worker keeps only its own two ends, as stdin and stdout (dup2 clears the
    // flag on those).
    ASSERT_EQ(::pipe2(ready, O_CLOEXEC), 0);
    ASSERT_EQ(::pipe2(go, O_CLOEXEC), 0);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::dup2(go[0], STDIN_FILENO);
      ::dup2(ready[1], STDOUT_FILENO);
      ::execl(WHIZBANG_PG_CLAIM_WORKER, WHIZBANG_PG_CLAIM_WORKER, conninfo_.c_str(), nullptr);
      ::_exit(127);
    }
    ASSERT_GT(pid, 0);
    ::close(ready[1]);
    ::close(go[0]);
    workers.push_back(pid);
    ready_pipes.push_back(ready[0]);
    go_pipes.push_back(go[1]);
  }
  std::vector<bool> connected;
  for (const int ready : ready_pipes) {
    char byte = 0;
    connected.push_back(::read(ready, &byte, 1) == 1);
    EXPECT_TRUE(connected.back()) << "a worker exited before it was connected";
    ::close(ready);
  }
  for (std::size_t i = 0; i < go_pipes.size(); ++i) {
    if (connected[i]) {
      EXPECT_EQ(::write(go_pipes[i], "g", 1), 1);
    }
    ::close(go_pipes[i]);
  }
  for (const pid_t pid : workers) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "worker " << pid << ": " << status;
  }

  std::unique_ptr<PGconn, decltype(&PQfinish)> conn(PQconnectdb(conninfo_.c_str()), &PQfinish);
  std::unique_ptr<PGresult, decltype(&PQclear)> journal(
      PQexec(conn.get(),
             "SELECT message_id, stream_id, instance FROM wh_test_journal ORDER BY seq"),
      &PQclear);
  ASSERT_EQ(PQresultStatus(journal.get()), PGRES_TUPLES_OK) << PQerrorMessage(conn.get());
  std::map<std::string, int> handled;
  std::map<std::string, std::vector<std::string>> order;  // per stream, in handling order
  std::set<std::string> instances;
  for (int row = 0; row < PQntuples(journal.get()); ++row) {
    const std::string id = PQgetvalue(journal.get(), row, 0);
    ++handled[id];
    order[PQgetvalue(journal.get(), row, 1)].push_back(id);
    instances.insert(PQgetvalue(journal.get(), row, 2));
  }
  EXPECT_EQ(handled.size(), rows.size());
  for (const auto& [id, count] : handled) EXPECT_EQ(count, 1) << id;
  for (const auto& [stream, ids] : order) {
    // Hyphenated lowercase uuids sort as their bytes do: message-id order.
    EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end())) << stream;
  }
  EXPECT_GT(instances.size(), 1u) << "one process did all the work: nothing ran concurrently";
}

// Two instances handle messages that change the same two rows of the service's own table
// through SqlSession, each instance in the opposite order; their first handlings meet holding one
// row each (a barrier makes sure of it), so PostgreSQL must abort one of them (deadlock, 40P01).
// That handling runs again without counting an attempt, and no update is lost: both counters end
// at the number of messages.
TEST_F(PostgresConcurrencyTests, TwoInstancesUpdatingTheSameRows_DeadlockRetried_NoUpdateLost) {
  auto first = open_instance();
  auto second = open_instance();
  ASSERT_TRUE(first && second);
  {
    Transaction schema(*first);
    SqlSession& sql = *schema.sql().value();
    ASSERT_TRUE(sql.execute("CREATE TABLE counters (id text PRIMARY KEY, n bigint NOT NULL)").ok());
    ASSERT_TRUE(sql.execute("INSERT INTO counters VALUES ('a', 0), ('b', 0)").ok());
    ASSERT_TRUE(schema.commit().ok());
  }
  constexpr int kMessages = 200;
  std::vector<TransportMessage> batch;
  for (int i = 0; i < kMessages; ++i) {
    batch.push_back(transport_message(outbox_message(OrderCreated{"o", i}, "orders")));
  }
  std::atomic<int> deadlocked{0};
  std::mutex mutex;
  std::condition_variable arrived;
  int holding_one_row = 0;  // first handlings past their first update
  const auto bumping = [&](std::array<const char*, 2> order) -> InboxHandler {
    return [&, order, first_call = std::make_shared<bool>(true)](InboxHandling&) -> absl::Status {
      SqlSession& sql = *SqlSession::current().value();
      for (const char* id : order) {
        absl::StatusOr<std::int64_t> bumped =
            sql.execute("UPDATE counters SET n = n + 1 WHERE id = $1", {id});
        if (!bumped.ok()) {
          ++deadlocked;
          return bumped.status();  // the deadlock's Unavailable, as it is
        }
        if (std::exchange(*first_call, false)) {
          std::unique_lock lock(mutex);
          ++holding_one_row;
          arrived.notify_all();
          arrived.wait_for(lock, 10s, [&] { return holding_one_row == 2; });
        }
      }
      return absl::OkStatus();
    };
  };
  InboxWorkerOptions options;
  options.poll_interval = 10ms;
  options.max_group = 10;
  InboxWorker one(*first, resolve, bumping({"a", "b"}), options);
  InboxWorker two(*second, resolve, bumping({"b", "a"}), options);
  ASSERT_TRUE(one.receive(batch).ok());
  one.start();
  two.start();
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  long pending = -1;
  while (std::chrono::steady_clock::now() < deadline) {
    pending = whizbang_test::postgres_scalar(conninfo_, "SELECT count(*) FROM wh_inbox");
    if (pending == 0) break;
    std::this_thread::sleep_for(20ms);
  }
  one.stop();
  two.stop();
  // A counted failure would have waited out its backoff (a minute) before its next try.
  EXPECT_EQ(pending, 0) << "every message handled, none held back as a failed attempt";
  EXPECT_EQ(whizbang_test::postgres_scalar(conninfo_, "SELECT n FROM counters WHERE id = 'a'"),
            kMessages);
  EXPECT_EQ(whizbang_test::postgres_scalar(conninfo_, "SELECT n FROM counters WHERE id = 'b'"),
            kMessages);
  EXPECT_GT(deadlocked.load(), 0) << "the two orders met";
}

}  // namespace
}  // namespace store_test
