// A PostgreSQL server restarting under a running store: calls fail as Unavailable while it is
// down, the store reconnects on its own afterwards, and nothing committed is lost. The test runs
// a server of its own (the shared one serves other tests meanwhile).
#include <gtest/gtest.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <mutex>

#include "store_test_support.hpp"
#include "support/postgres_schema.hpp"
#include "whizbang/store/postgres/postgres_work_store.hpp"

namespace store_test {
namespace {

using namespace whizbang;
using namespace std::chrono_literals;

class PostgresRestartTests : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(server("up"), 0);
    conninfo_ = "postgresql:///whizbang_test?host=" + dir_ + "&port=" + port_ + "&user=whizbang";
  }
  void TearDown() override { EXPECT_EQ(server("down"), 0); }

  int server(const std::string& command) {
    const std::string line = std::string(WHIZBANG_PG_SERVER_SCRIPT) + " " + command + " " + dir_ +
                             " " + port_ + " >/dev/null";
    return std::system(line.c_str());
  }

  std::string dir_ = "/tmp/whizbang-pgr-" + std::to_string(::getpid());
  std::string port_ = "55433";
  std::string conninfo_;
};

TEST_F(PostgresRestartTests, ServerRestartMidRun_UnavailableMeanwhileThenReconnectsLosingNothing) {
  StoreOptions options;
  options.instance = instance("orders");
  auto store = PostgresWorkStore::open(conninfo_, options);
  ASSERT_TRUE(store.ok()) << store.status();
  std::mutex mutex;
  std::condition_variable changed;
  int wakeups = 0;
  const int listener = (*store)->add_commit_listener([&](const CommitInfo&) {
    std::lock_guard lock(mutex);
    ++wakeups;
    changed.notify_all();
  });
  auto wait_for_wakeups = [&](int count) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, 30s, [&] { return wakeups >= count; });
  };

  std::vector<MessageId> committed;
  auto store_one = [&]() -> absl::Status {
    const InboxMessage message = inbox_message(outbox_message(ShipOrderCommand{"o"}, "orders"));
    auto stored = (*store)->store_inbox_messages({&message, 1}, MessageId::mint().uuid());
    if (stored.ok()) committed.push_back(message.message_id);
    return stored.status();
  };
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(store_one().ok());

  ASSERT_EQ(server("stop"), 0);
  const absl::Status while_down = store_one();
  EXPECT_TRUE(absl::IsUnavailable(while_down)) << while_down;
  {
    std::lock_guard lock(mutex);
    wakeups = 0;
  }
  ASSERT_EQ(server("start"), 0);

  for (int i = 0; i < 20; ++i) ASSERT_TRUE(store_one().ok()) << i;
  // The listener reconnected too, and reported that it may have missed work.
  EXPECT_TRUE(wait_for_wakeups(1));
  (*store)->remove_commit_listener(listener);

  ASSERT_EQ(committed.size(), 40u);
  for (const MessageId& id : committed) {
    auto row = (*store)->find_inbox_row(id);
    ASSERT_TRUE(row.ok()) << row.status();
    EXPECT_TRUE(row->has_value()) << id.uuid().to_string();
  }
}

}  // namespace
}  // namespace store_test
