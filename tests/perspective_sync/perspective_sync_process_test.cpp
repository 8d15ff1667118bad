// Read-your-writes across processes (docs/perspectives.md, "Read-your-writes"): this process
// dispatches and waits; perspective_sync_worker, another process of the service on the same
// store, drains the outbox and applies the perspectives. PostgreSQL wakes the wait with
// LISTEN/NOTIFY; SQLite looks again with backoff.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <whizbang/host/service_host.hpp>
#include <whizbang/workers/perspective_sync.hpp>

#include "sync_fixture.hpp"

namespace psync {
namespace {

using namespace std::chrono_literals;
using whizbang::MessageId;

class PerspectiveSyncProcessTests : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    // This process only dispatches: the rows it writes are free for the worker process at once
    // (a lease of 0), where they would otherwise wait for this process's own drain worker.
    whizbang::StoreOptions options;
    options.instance = {"sync-tests", MessageId::mint().uuid(), "dispatching-process", 7};
    options.lease_duration = 0s;
    store_ = location_.open(options);
    ASSERT_NE(store_, nullptr);
    whizbang::HostOptions host_options;
    host_options.service_name = "sync-tests";
    host_options.store = store_.get();
    auto host = whizbang::ServiceHost::create(test_registry(), services_, std::move(host_options));
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = *std::move(host);  // never started: its workers do not run in this process
    sync_ = std::make_unique<whizbang::PerspectiveSync>(*store_, test_registry());
  }
  void TearDown() override {
    stop_worker();
    sync_.reset();
    host_.reset();
    store_.reset();
  }

  void start_worker() {
    const char* backend = GetParam() == Backend::Postgres ? "postgres" : "sqlite";
    worker_ = ::fork();
    if (worker_ == 0) {
      ::execl(WHIZBANG_PERSPECTIVE_SYNC_WORKER, WHIZBANG_PERSPECTIVE_SYNC_WORKER, backend,
              location_.location().c_str(), nullptr);
      ::_exit(127);
    }
    ASSERT_GT(worker_, 0);
  }
  void stop_worker() {
    if (worker_ <= 0) return;
    ::kill(worker_, SIGTERM);
    int status = 0;
    ASSERT_EQ(::waitpid(worker_, &status, 0), worker_);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "worker exit " << status;
    worker_ = -1;
  }

  static AddItem add(std::string name) {
    AddItem command;
    command.name = std::move(name);
    return command;
  }

  StoreLocation location_{GetParam()};
  whizbang::ServiceRegistry services_;
  std::unique_ptr<whizbang::WorkStore> store_;
  std::unique_ptr<whizbang::ServiceHost> host_;
  std::unique_ptr<whizbang::PerspectiveSync> sync_;
  pid_t worker_ = -1;
};

TEST_P(PerspectiveSyncProcessTests, PerspectivesInAnotherProcess_WaitReturnsOnceTheModelHasIt) {
  ASSERT_NO_FATAL_FAILURE(start_worker());
  for (const std::string name : {"one", "two", "three"}) {
    auto receipt =
        whizbang::send_and_sync(host_->dispatcher(), *sync_, add(name), {.timeout = 30s});
    ASSERT_TRUE(receipt.ok()) << receipt.status();
    // Read right after the wait, through this process's own store: the other process's change.
    const std::optional<Trail> trail = stored_trail(*store_, receipt->message_id.uuid());
    ASSERT_TRUE(trail.has_value()) << name;
    EXPECT_EQ(trail->names, std::vector<std::string>{name});
  }
}

// On PostgreSQL the other process's commit wakes the wait (LISTEN/NOTIFY, kind "p"): a wait that
// would look again only after a minute returns as soon as the worker process applied the event.
class PerspectiveSyncNotifyTests : public PerspectiveSyncProcessTests {};

TEST_P(PerspectiveSyncNotifyTests, OtherProcessCommitWakesTheWait_NotPolling) {
  whizbang::PerspectiveSync slow_poll(
      *store_, test_registry(),
      whizbang::Backoff{.initial = 60s, .factor = 1, .cap = 60s, .jitter = 0});
  ASSERT_NO_FATAL_FAILURE(start_worker());
  const auto started = std::chrono::steady_clock::now();
  auto receipt =
      whizbang::send_and_sync(host_->dispatcher(), slow_poll, add("notified"), {.timeout = 50s});
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 30s);
  const std::optional<Trail> trail = stored_trail(*store_, receipt->message_id.uuid());
  ASSERT_TRUE(trail.has_value());
  EXPECT_EQ(trail->names, std::vector<std::string>{"notified"});
}

TEST_P(PerspectiveSyncProcessTests, NoWorkerProcess_DeadlineExceededNamesThePendingEvent) {
  auto receipt =
      whizbang::send_and_sync(host_->dispatcher(), *sync_, add("alone"), {.timeout = 200ms});
  EXPECT_EQ(receipt.status().code(), absl::StatusCode::kDeadlineExceeded) << receipt.status();
  EXPECT_NE(receipt.status().message().find("psync::ItemAdded"), absl::string_view::npos)
      << receipt.status();
  // The worker process started late still applies it: the same wait then succeeds.
  ASSERT_NO_FATAL_FAILURE(start_worker());
  whizbang::EmissionCapture capture;
  auto second = host_->dispatcher().send(add("later"));
  ASSERT_TRUE(second.ok()) << second.status();
  absl::Status waited = sync_->wait(capture.token(), {.timeout = 30s});
  ASSERT_TRUE(waited.ok()) << waited;
  const std::optional<Trail> trail = stored_trail(*store_, second->message_id.uuid());
  ASSERT_TRUE(trail.has_value());
  EXPECT_EQ(trail->names, std::vector<std::string>{"later"});
}

INSTANTIATE_TEST_SUITE_P(Postgres, PerspectiveSyncNotifyTests, ::testing::Values(Backend::Postgres),
                         whizbang_test::backend_name);
INSTANTIATE_TEST_SUITE_P(Stores, PerspectiveSyncProcessTests,
                         ::testing::Values(Backend::Sqlite, Backend::Postgres),
                         whizbang_test::backend_name);

}  // namespace
}  // namespace psync
