// ShutdownTests: stop() stops the workers, then waits for detached work, then writes the deferred
// rows; when it returns nothing of the host runs, however late the workers' last cycles
// scheduled their detached stages.
#include <whizbang/lifecycle/executor.hpp>
#include <whizbang/store/store_reader.hpp>

#include <atomic>

#include "fault_fixture.hpp"

namespace faults {
namespace {

using namespace std::chrono_literals;

// A thread pool that counts the work not yet finished, and calls a hook when drained.
class CountingExecutor final : public whizbang::Executor {
 public:
  void submit(std::function<void()> work) override {
    ++pending_;
    inner_.submit([this, work = std::move(work)] {
      work();
      --pending_;
    });
  }
  void drain() override {
    if (on_drain) on_drain();
    inner_.drain();
  }
  int pending() const { return pending_.load(); }

  std::function<void()> on_drain;

 private:
  std::atomic<int> pending_{0};
  whizbang::ThreadPoolExecutor inner_{1};
};

TEST(ShutdownTests, Stop_ReturnsOnlyWhenTheWorkersLastDetachedWorkHasFinished) {
  TestDir dir;
  TestClock clock;
  LogCapture log;
  whizbang::InProcessTransport transport;
  CountingExecutor executor;
  ServiceConfig orders_config{Backend::Memory, "orders", &transport, &clock, &log, &dir};
  orders_config.configure = [&](whizbang::HostOptions& options) { options.executor = &executor; };
  Service orders(orders_config);
  Service warehouse({Backend::Memory, "warehouse", &transport, &clock, &log, &dir});
  // The drain worker's cycle stops in the PreOutbox stage until the executor is drained: only
  // then does it publish and schedule the PostOutboxDetached stage.
  orders.faults.block("ShipmentGate");
  executor.on_drain = [&] { orders.faults.release.set(); };
  ASSERT_TRUE(orders.host->start().ok());
  ASSERT_TRUE(orders.host->dispatcher().publish(whizbang::Route::Outbox(shipped("o-1"))).ok());
  ASSERT_TRUE(orders.faults.entered.wait());
  orders.host->stop();
  EXPECT_EQ(orders.faults.count("ShipmentArchiver"), 1) << "the detached stage ran before stop()";
  EXPECT_EQ(executor.pending(), 0);
  EXPECT_EQ(warehouse.faults.count("ShipmentReceiver"), 0) << "warehouse was never stepped";
}

TEST(ShutdownTests, Stop_WritesWhatTheDeferredChannelStillHolds) {
  TestDir dir;
  TestClock clock;
  LogCapture log;
  whizbang::InProcessTransport transport;
  Service orders({Backend::Sqlite, "orders", &transport, &clock, &log, &dir});
  // Outside any transaction the publish is deferred to the drain worker, which never runs here.
  absl::StatusOr<whizbang::DeliveryReceipt> receipt =
      orders.host->dispatcher().publish(whizbang::Route::Outbox(shipped("o-1")));
  ASSERT_TRUE(receipt.ok());
  auto before = whizbang::reader_of(*orders.store)->find_outbox_row(receipt->message_id);
  ASSERT_TRUE(before.ok());
  EXPECT_FALSE(before->has_value()) << "deferred: only in memory";
  orders.host->stop();
  auto after = whizbang::reader_of(*orders.store)->find_outbox_row(receipt->message_id);
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->has_value()) << "written by stop()";
}

}  // namespace
}  // namespace faults
