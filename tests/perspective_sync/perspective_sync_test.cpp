// Read-your-writes in one process (docs/perspectives.md, "Read-your-writes"): a dispatch waits
// until the perspectives applied what its handling emitted, on every backend.
#include <gtest/gtest.h>

#include <whizbang/host/service_host.hpp>
#include <whizbang/workers/perspective_sync.hpp>

#include "sync_fixture.hpp"

namespace psync {
namespace {

using namespace std::chrono_literals;
using whizbang::MessageId;

class PerspectiveSyncTests : public ::testing::TestWithParam<Backend> {
 protected:
  // A host on the backend (its workers not started until start()); `max_attempts` 1 dead-letters
  // a failing apply at once.
  void open(int max_attempts = 10) {
    whizbang::StoreOptions options;
    options.instance = {"sync-tests", MessageId::mint().uuid(), "test-host", 7};
    options.max_attempts = max_attempts;
    store_ = location_.open(options);
    ASSERT_NE(store_, nullptr);
    whizbang::HostOptions host_options;
    host_options.service_name = "sync-tests";
    host_options.store = store_.get();
    host_options.poll_interval = 20ms;
    auto host = whizbang::ServiceHost::create(test_registry(), services_, std::move(host_options));
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = *std::move(host);
    sync_ = std::make_unique<whizbang::PerspectiveSync>(*store_, test_registry());
  }
  void TearDown() override {
    if (host_) host_->stop();
    sync_.reset();
    host_.reset();
    store_.reset();
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
};

TEST_P(PerspectiveSyncTests, SendAndSync_ReturnsOnceTheModelHasTheChange) {
  ASSERT_NO_FATAL_FAILURE(open());
  ASSERT_TRUE(host_->start().ok());
  for (const std::string name : {"first", "second"}) {
    auto receipt =
        whizbang::send_and_sync(host_->dispatcher(), *sync_, add(name), {.timeout = 20s});
    ASSERT_TRUE(receipt.ok()) << receipt.status();
    // Read right after the wait: the model already has the change.
    const std::optional<Trail> trail = stored_trail(*store_, receipt->message_id.uuid());
    ASSERT_TRUE(trail.has_value());
    EXPECT_EQ(trail->names, std::vector<std::string>{name});
  }
}

// A wait that would look again only after a minute returns at once: the commit that completes the
// perspective work wakes it (the store's commit listeners), it does not poll for it.
TEST_P(PerspectiveSyncTests, SendAndSync_IsWokenByThePerspectiveCommit_NotByPolling) {
  ASSERT_NO_FATAL_FAILURE(open());
  whizbang::PerspectiveSync slow_poll(
      *store_, test_registry(),
      whizbang::Backoff{.initial = 60s, .factor = 1, .cap = 60s, .jitter = 0});
  ASSERT_TRUE(host_->start().ok());
  const auto started = std::chrono::steady_clock::now();
  auto receipt =
      whizbang::send_and_sync(host_->dispatcher(), slow_poll, add("woken"), {.timeout = 50s});
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 30s);
  const std::optional<Trail> trail = stored_trail(*store_, receipt->message_id.uuid());
  ASSERT_TRUE(trail.has_value());
  EXPECT_EQ(trail->names, std::vector<std::string>{"woken"});
}

TEST_P(PerspectiveSyncTests, LocalInvokeAndSync_ReturnsTheResultOnceTheChosenPerspectiveApplied) {
  ASSERT_NO_FATAL_FAILURE(open());
  ASSERT_TRUE(host_->start().ok());
  whizbang::EmissionCapture outer;  // sees what the wrapper's dispatch emitted too
  auto added = whizbang::local_invoke_and_sync<ItemAdded>(
      host_->dispatcher(), *sync_, add("invoked"),
      {.timeout = 20s, .perspectives = {std::string(kTrail)}});
  ASSERT_TRUE(added.ok()) << added.status();
  EXPECT_EQ(added->name, "invoked");
  ASSERT_EQ(outer.token().events.size(), 1u);
  const whizbang::EmittedEvent& event = outer.token().events.front();
  EXPECT_EQ(event.type->wire_name, "psync::ItemAdded");
  const std::optional<Trail> trail = stored_trail(*store_, event.stream_id);
  ASSERT_TRUE(trail.has_value());
  EXPECT_EQ(trail->names, std::vector<std::string>{"invoked"});
}

TEST_P(PerspectiveSyncTests, NoPerspectiveWorkerRunning_DeadlineExceededNamesWhatIsPending) {
  ASSERT_NO_FATAL_FAILURE(open());  // never started: nothing applies the event
  whizbang::EmissionCapture capture;
  auto receipt = host_->dispatcher().send(add("waiting"));
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  const whizbang::SyncToken token = capture.take();
  ASSERT_EQ(token.events.size(), 1u);
  const std::string event_id = token.events.front().event_id.to_string();

  absl::Status waited = sync_->wait(token, {.timeout = 100ms});
  EXPECT_EQ(waited.code(), absl::StatusCode::kDeadlineExceeded) << waited;
  EXPECT_NE(waited.message().find("not in the event store yet"), absl::string_view::npos) << waited;

  // Appended (as the drain worker would), still not applied: the perspective is named.
  ASSERT_TRUE(store_->process_work_batch({}).ok());
  waited = sync_->wait(token, {.timeout = 100ms});
  EXPECT_EQ(waited.code(), absl::StatusCode::kDeadlineExceeded) << waited;
  EXPECT_NE(waited.message().find(std::string(kTrail) + " has not applied event " + event_id),
            absl::string_view::npos)
      << waited;
}

TEST_P(PerspectiveSyncTests, DeadLetteredApply_IsAFailureNotAWaitUntilTheTimeout) {
  ASSERT_NO_FATAL_FAILURE(open(/*max_attempts=*/1));
  ASSERT_TRUE(host_->start().ok());
  const auto started = std::chrono::steady_clock::now();
  auto receipt =
      whizbang::send_and_sync(host_->dispatcher(), *sync_, add("poison"), {.timeout = 60s});
  EXPECT_EQ(receipt.status().code(), absl::StatusCode::kAborted) << receipt.status();
  EXPECT_NE(receipt.status().message().find(std::string(kTrail) + " dead-lettered event"),
            absl::string_view::npos)
      << receipt.status();
  EXPECT_NE(receipt.status().message().find("poison cannot be applied"), absl::string_view::npos)
      << receipt.status();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 30s);
}

TEST_P(PerspectiveSyncTests,
       UnknownPerspective_InvalidArgument_EmptyToken_Ok_InsideATransaction_Refused) {
  ASSERT_NO_FATAL_FAILURE(open());
  whizbang::SyncToken token;
  EXPECT_TRUE(sync_->wait(token).ok());  // a send handled elsewhere emitted nothing here
  whizbang::EmissionCapture capture;
  ASSERT_TRUE(host_->dispatcher().send(add("x")).ok());
  absl::Status waited = sync_->wait(capture.token(), {.timeout = 10ms, .perspectives = {"nope"}});
  EXPECT_EQ(waited.code(), absl::StatusCode::kInvalidArgument) << waited;
  // Inside a transaction of the store the perspectives could never catch up: refused at once.
  whizbang::Transaction tx(*store_);
  ASSERT_TRUE(tx.status().ok());
  waited = sync_->wait(capture.token(), {.timeout = 10s});
  EXPECT_EQ(waited.code(), absl::StatusCode::kFailedPrecondition) << waited;
}

INSTANTIATE_TEST_SUITE_P(Stores, PerspectiveSyncTests, whizbang_test::all_backends(),
                         whizbang_test::backend_name);

}  // namespace
}  // namespace psync
