// ThrowingReceptorTests: receptors fail by throwing, and no exception crosses a runtime boundary:
// public calls return a status naming the receptor, workers turn it into a failed row (retried
// with backoff), and nothing a worker, an executor or a transport runs takes the process down.
#include <whizbang/lifecycle/executor.hpp>
#include <whizbang/store/store_reader.hpp>
#include <whizbang/workers/worker_loop.hpp>

#include <atomic>

#include "fault_fixture.hpp"

namespace faults {
namespace {

using testing::HasSubstr;
using namespace std::chrono_literals;

class ThrowingReceptorTests : public ::testing::TestWithParam<Backend> {
 protected:
  ServiceConfig config(std::string name) {
    return {GetParam(), std::move(name), &transport_, &clock_, &log_, &dir_, 10, nullptr};
  }

  TestDir dir_;
  TestClock clock_;
  LogCapture log_;
  whizbang::InProcessTransport transport_;
};

INSTANTIATE_TEST_SUITE_P(Stores, ThrowingReceptorTests, all_backends(), backend_name);

TEST_P(ThrowingReceptorTests, SendToAThrowingReceptor_ReturnsAStatusNamingTheReceptor) {
  Service billing(config("billing"));
  billing.faults.fail("CardCharger");
  ChargeCard command;
  command.order_id = "o-1";
  absl::StatusOr<whizbang::DeliveryReceipt> receipt = billing.host->dispatcher().send(command);
  ASSERT_FALSE(receipt.ok());
  EXPECT_EQ(receipt.status().code(), absl::StatusCode::kUnknown);
  EXPECT_THAT(std::string(receipt.status().message()),
              HasSubstr("receptor faults::CardCharger threw: card declined"));
}

TEST_P(ThrowingReceptorTests, LocalInvokeOfANonStandardThrow_ReturnsAStatus) {
  Service billing(config("billing"));
  billing.faults.fail("WeirdThrower");
  WeirdCommand command;
  command.order_id = "o-1";
  const absl::Status status = billing.host->dispatcher().local_invoke(command);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("receptor faults::WeirdThrower threw a non-standard exception"));
}

// HostOptions::retry_policies reaches the inbox worker (docs/guide/11-failures.md, "Retry
// policies"): the receptor's exception type gets an immediate retry, not the 60 s default.
TEST_P(ThrowingReceptorTests, RetryPolicyOfTheThrownType_AppliedByTheHost) {
  ServiceConfig with_policy = config("warehouse");
  with_policy.configure = [](whizbang::HostOptions& options) {
    whizbang::RetryPolicy at_once;
    at_once.immediate_retries = 1;
    options.retry_policies.on_exception<std::runtime_error>(at_once);
  };
  Service warehouse(with_policy);
  warehouse.faults.fail("ShipOrderHandler", 1);
  const whizbang::MessageId id = deliver(transport_, ship("o-1"));
  EXPECT_EQ(warehouse.step().inbox.failed, 1u);
  EXPECT_EQ(warehouse.step().inbox.handled, 1u) << "retried at once, no clock moved";
  auto row = whizbang::reader_of(*warehouse.store)->find_inbox_row(id);
  ASSERT_TRUE(row.ok());
  EXPECT_FALSE(row->has_value()) << "handled and completed";
}

TEST_P(ThrowingReceptorTests, PermanentFailure_IsAPermanentStatus) {
  Service billing(config("billing"));
  billing.faults.fail("OrderRejecter");
  RejectOrder command;
  command.order_id = "o-1";
  absl::StatusOr<whizbang::DeliveryReceipt> receipt = billing.host->dispatcher().send(command);
  ASSERT_FALSE(receipt.ok());
  EXPECT_TRUE(whizbang::is_permanent(receipt.status()));
  EXPECT_THAT(std::string(receipt.status().message()),
              HasSubstr("receptor faults::OrderRejecter failed permanently: order o-1 is invalid"));
}

TEST_P(ThrowingReceptorTests, InboxReceptorThrows_RowFailsWithTheErrorAndTheHostLivesOn) {
  Service warehouse(config("warehouse"));
  warehouse.faults.fail("ShipOrderHandler", 1);
  const whizbang::MessageId id = deliver(transport_, ship("o-1"));
  const whizbang::HostCycle cycle = warehouse.step();  // run_once itself does not fail
  EXPECT_EQ(cycle.inbox.failed, 1u);
  auto row = whizbang::reader_of(*warehouse.store)->find_inbox_row(id);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_EQ((*row)->state.attempts, 1);
  EXPECT_THAT((*row)->state.error,
              HasSubstr("receptor faults::ShipOrderHandler threw: warehouse unreachable"));
  EXPECT_TRUE((*row)->state.scheduled_for.has_value()) << "retried after its backoff";
  clock_.advance(61s);
  EXPECT_EQ(warehouse.step().inbox.handled, 1u);
  EXPECT_EQ(warehouse.faults.count("ShipOrderHandler"), 2);
}

TEST_P(ThrowingReceptorTests, InboxReceptorThrowsOnTheWorkerThread_TheProcessLivesOnAndRetries) {
  Service warehouse(config("warehouse"));
  warehouse.faults.fail("ShipOrderHandler", 1);
  ASSERT_TRUE(warehouse.host->start().ok());
  const whizbang::MessageId id = deliver(transport_, ship("o-1"));
  // The first attempt threw on the inbox worker's thread; the row waits for its backoff.
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (warehouse.faults.count("ShipOrderHandler") < 2 &&
         std::chrono::steady_clock::now() < deadline) {
    if (warehouse.faults.count("ShipOrderHandler") == 1) clock_.advance(61s);
    std::this_thread::yield();
  }
  EXPECT_EQ(warehouse.faults.count("ShipOrderHandler"), 2);
  warehouse.host->stop();
  auto row = whizbang::reader_of(*warehouse.store)->find_inbox_row(id);
  ASSERT_TRUE(row.ok());
  EXPECT_FALSE(row->has_value()) << "the retry completed it";
}

TEST_P(ThrowingReceptorTests, DetachedReceptorThrowsOnTheThreadPool_TheProcessLivesOn) {
  whizbang::ThreadPoolExecutor executor(2, log_.logger);
  auto with_executor = [&](whizbang::HostOptions& options) { options.executor = &executor; };
  ServiceConfig orders_config = config("orders");
  ServiceConfig shipping_config = config("shipping");
  shipping_config.configure = with_executor;
  Service orders(orders_config);
  Service shipping(shipping_config);
  shipping.faults.fail("DetachedAuditor");  // throws an int, on a pool thread
  ASSERT_TRUE(orders.host->dispatcher().send(place("o-1", 2)).ok());
  settle({&orders, &shipping});
  executor.drain();
  EXPECT_EQ(shipping.faults.count("DetachedAuditor"), 2);
  EXPECT_GE(log_.count("[error] [EventId 17 ReceptorFired] receptor faults::DetachedAuditor "
                       "failed at PostInboxDetached"),
            2);
  // The pool still runs work.
  std::atomic<bool> ran{false};
  executor.submit([&] { ran = true; });
  executor.drain();
  EXPECT_TRUE(ran.load());
}

TEST_P(ThrowingReceptorTests, PerspectiveThrows_TheEventIsRetriedAndTheWorkerLivesOn) {
  Service orders(config("orders"));
  Service shipping(config("shipping"));
  shipping.faults.fail("OrderTrail", 1);
  ASSERT_TRUE(orders.host->dispatcher().send(place("o-1")).ok());
  settle({&orders, &shipping});
  EXPECT_EQ(shipping.faults.count("OrderTrail"), 1);
  EXPECT_GE(log_.count("projection failed"), 1);
  clock_.advance(61s);
  settle({&orders, &shipping});
  EXPECT_EQ(shipping.faults.count("OrderTrail"), 2);
  EXPECT_EQ(shipping.faults.count("AllProjected"), 1) << "the gate opened once, after the retry";
}

TEST_P(ThrowingReceptorTests, PreOutboxReceptorThrows_TheRowFailsAndIsRetried) {
  Service orders(config("orders"));
  Service warehouse(config("warehouse"));
  orders.faults.fail("ShipmentGate", 1);
  absl::StatusOr<whizbang::DeliveryReceipt> receipt =
      orders.host->dispatcher().publish(whizbang::Route::Outbox(shipped("o-1")));
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  EXPECT_EQ(orders.step().outbox.failed, 1u);
  auto row = whizbang::reader_of(*orders.store)->find_outbox_row(receipt->message_id);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_THAT((*row)->state.error, HasSubstr("receptor faults::ShipmentGate threw: gate closed"));
  clock_.advance(61s);
  settle({&orders, &warehouse});
  EXPECT_EQ(warehouse.faults.count("ShipmentReceiver"), 1);
}

TEST_P(ThrowingReceptorTests, TransportHandlerThrows_ThePublishFailsAndTheRowStays) {
  Service orders(config("orders"));
  auto subscription =
      transport_.subscribe("warehouse", {{"orders", ""}},
                           [](const whizbang::TransportDestination&,
                              std::span<const whizbang::TransportMessage>) -> absl::Status {
                             throw std::runtime_error("consumer crashed");
                           });
  ASSERT_TRUE(subscription.ok());
  absl::StatusOr<whizbang::DeliveryReceipt> receipt =
      orders.host->dispatcher().publish(whizbang::Route::Outbox(shipped("o-1")));
  ASSERT_TRUE(receipt.ok());
  EXPECT_EQ(orders.step().outbox.failed, 1u);
  auto row = whizbang::reader_of(*orders.store)->find_outbox_row(receipt->message_id);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_THAT((*row)->state.error,
              HasSubstr("delivery to service 'warehouse' threw: consumer crashed"));
}

TEST(WorkerLoopTests, ACycleThatThrows_IsLoggedAndTheLoopGoesOn) {
  LogCapture log;
  std::atomic<int> cycles{0};
  Latch third_cycle;
  {
    whizbang::WorkerLoop loop;
    loop.start(
        [&]() -> absl::Status {
          const int cycle = ++cycles;
          if (cycle == 1) throw std::runtime_error("cycle exploded");
          if (cycle == 2) throw 3;
          if (cycle == 3) third_cycle.set();
          return absl::OkStatus();
        },
        "test", std::chrono::milliseconds(1), log.logger);
    ASSERT_TRUE(third_cycle.wait());
  }
  EXPECT_EQ(
      log.count("[EventId 54 WorkerCycleFailed] test cycle failed: test threw: cycle exploded"), 1);
  EXPECT_EQ(log.count("test cycle failed: test threw a non-standard exception"), 1);
}

TEST(ExecutorTests, WorkThatThrows_IsLoggedAndThePoolDrains) {
  LogCapture log;
  std::atomic<int> ran{0};
  {
    whizbang::ThreadPoolExecutor executor(1, log.logger);
    executor.submit([] { throw std::runtime_error("detached boom"); });
    executor.submit([&] { ++ran; });
    executor.drain();
    EXPECT_EQ(ran.load(), 1);
  }
  EXPECT_EQ(log.count("[EventId 140 ExecutorWorkFailed] detached work threw: detached boom"), 1);
}

}  // namespace
}  // namespace faults
