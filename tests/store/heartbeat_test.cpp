// An instance's heartbeat (wh_service_instances) on the backends several instances share: written
// by the first work cycle, then at most once per interval (10 s) however busy the instance is, and
// enough to keep it from another instance's purge. Seen through the purge of a second instance
// on the same database, the only reader of the heartbeat.
#include <gtest/gtest.h>

#include "store_backends.hpp"
#include "whizbang/store/open_work_store.hpp"

namespace store_test {
namespace {

using namespace whizbang;
using namespace std::chrono_literals;

// Where the two instances' stores live: one database, by a location open_work_store takes.
struct SqliteFile {
  static std::string database(const TempDir& dir) { return dir.file("store.db"); }
};
struct PostgresSchema {
  static std::string database(const TempDir&) { return whizbang_test::fresh_postgres_schema(); }
};

template <class Backend>
class HeartbeatTests : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string database = Backend::database(dir_);
    ASSERT_FALSE(database.empty());
    auto busy = open_work_store(database, options_for("orders"));
    auto other = open_work_store(database, options_for("orders"));
    ASSERT_TRUE(busy.ok()) << busy.status();
    ASSERT_TRUE(other.ok()) << other.status();
    busy_ = *std::move(busy);
    other_ = *std::move(other);
  }
  StoreOptions options_for(std::string service) {
    StoreOptions options;
    options.instance = instance(std::move(service));
    options.now = clock_.fn();
    return options;
  }
  // A work cycle with a row to store: never an idle poll, so the store writes what it must.
  void busy_cycle() {
    WorkBatchRequest request;
    request.new_outbox.push_back(outbox_message(OrderCreated{"o-1", 1}, "orders"));
    ASSERT_TRUE(busy_->process_work_batch(request).ok());
  }
  // The other instance's purge of instances silent for more than 3 s: how many it removed.
  std::int64_t purge_silent_instances() {
    RetentionOptions retention;
    retention.service_instances = 3s;
    absl::StatusOr<PurgeCounts> purged = other_->purge(retention);
    EXPECT_TRUE(purged.ok()) << purged.status();
    return purged.ok() ? purged->service_instances : -1;
  }

  TempDir dir_;
  ManualClock clock_;
  std::unique_ptr<WorkStore> busy_;
  std::unique_ptr<WorkStore> other_;
};

using SharedDatabases = ::testing::Types<SqliteFile, PostgresSchema>;
class SharedDatabaseNames {
 public:
  template <class T>
  static std::string GetName(int) {
    return std::is_same_v<T, SqliteFile> ? "Sqlite" : "Postgres";
  }
};
TYPED_TEST_SUITE(HeartbeatTests, SharedDatabases, SharedDatabaseNames);

TYPED_TEST(HeartbeatTests, Heartbeat_WrittenOncePerIntervalNotPerWorkCycle) {
  this->busy_cycle();  // the first cycle writes it
  this->clock_.advance(5s);
  this->busy_cycle();  // within the interval: not rewritten
  // Silent for 5 s by its row: the other instance purges it.
  EXPECT_EQ(this->purge_silent_instances(), 1);

  this->clock_.advance(5s);
  this->busy_cycle();  // 10 s after the last write: due again
  this->clock_.advance(1s);
  EXPECT_EQ(this->purge_silent_instances(), 0);
}

}  // namespace
}  // namespace store_test
