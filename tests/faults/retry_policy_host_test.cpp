// Retry policies beyond the inbox and outbox (docs/guide/11-failures.md, "Retry policies"):
// HostOptions::retry_policies also decides the retries of a perspective's failed apply, of failed
// PostAllPerspectives/PostLifecycle stages (the lifecycle completion) and of a Detached stage's
// failed run (its kept work), by the exception the perspective or receptor threw, on every store.
// Each kind: immediate retries then backoff (the next attempt within the jitter's bounds), its
// max_attempts dead-letters, a non-retryable type dead-letters at the first failure, and no
// policy keeps the store's schedule (60 s).
#include <whizbang/lifecycle/executor.hpp>
#include <whizbang/store/store_reader.hpp>

#include <functional>
#include <optional>
#include <stdexcept>
#include <vector>

#include "fault_fixture.hpp"

namespace faults::retry_policy_host_test {

using testing::ElementsAre;
using namespace std::chrono_literals;
using whizbang::RetryPolicies;
using whizbang::RetryPolicy;

// Two retries at once, then 10 s and 20 s (±20 %), dead-lettered at the fifth attempt.
RetryPolicy two_at_once_then_backoff() {
  RetryPolicy policy;
  policy.immediate_retries = 2;
  policy.backoff = {.initial = 10s, .factor = 2, .cap = 60s, .jitter = 0.2};
  policy.max_attempts = 5;
  return policy;
}

// An executor the test runs by hand: a Detached stage's first run happens when the test says,
// on the test's thread, never during a host cycle.
class HandRunExecutor final : public whizbang::Executor {
 public:
  void submit(std::function<void()> work) override { parked_.push_back(std::move(work)); }
  void drain() override { run_all(); }
  void run_all() {
    std::vector<std::function<void()>> work = std::move(parked_);
    parked_.clear();
    for (auto& run : work) run();
  }

 private:
  std::vector<std::function<void()>> parked_;
};

class RetryPolicyHostTests : public ::testing::TestWithParam<Backend> {
 protected:
  // "shipping" with `policies` (none: the default), and `executor` for its Detached stages.
  std::unique_ptr<Service> shipping(std::optional<RetryPolicies> policies,
                                    whizbang::Executor* executor = nullptr) {
    ServiceConfig config{GetParam(), "shipping", &transport_, &clock_, &log_, &dir_};
    config.configure = [policies = std::move(policies), executor](whizbang::HostOptions& options) {
      if (policies) options.retry_policies = *policies;
      options.executor = executor;
    };
    return std::make_unique<Service>(std::move(config));
  }
  // An OrderPlaced from "orders", arriving at shipping's inbox; its stream is its id.
  whizbang::MessageId deliver_placed() {
    OrderPlaced placed;
    placed.order_id = "o-1";
    return deliver(transport_, placed, "orders");
  }
  // The one perspective event of the stream `id` started.
  std::optional<whizbang::PerspectiveEventRow> perspective_row(Service& service,
                                                               const whizbang::MessageId& id) {
    auto rows = whizbang::reader_of(*service.store)->perspective_events(id.uuid());
    EXPECT_TRUE(rows.ok()) << rows.status();
    if (!rows.ok() || rows->size() != 1) return std::nullopt;
    return rows->front();
  }
  // The store's only dead letter, which must come from `source`.
  std::optional<whizbang::DeadLetter> only_dead_letter(Service& service,
                                                       whizbang::DeadLetterSource source) {
    auto letters = service.store->dead_letters(10);
    EXPECT_TRUE(letters.ok()) << letters.status();
    if (!letters.ok() || letters->size() != 1) {
      ADD_FAILURE() << "dead letters: " << (letters.ok() ? letters->size() : 0);
      return std::nullopt;
    }
    EXPECT_EQ(letters->front().source, source);
    return letters->front();
  }
  // Checks the wait before the next attempt lies in [low, high]: nothing is due just before
  // `low`, and `cycle` (a host cycle's count of failed attempts) sees the attempt just after
  // `high`. The clock then stands just after `high`.
  void expect_due_between(std::chrono::milliseconds low, std::chrono::milliseconds high,
                          const std::function<std::size_t()>& cycle) {
    clock_.advance(low - 100ms);
    EXPECT_EQ(cycle(), 0u) << "due before " << low.count() << " ms";
    clock_.advance(high - low + 200ms);
    EXPECT_EQ(cycle(), 1u) << "not due " << high.count() << " ms on";
  }

  TestDir dir_;
  TestClock clock_;
  LogCapture log_;
  whizbang::InProcessTransport transport_;
};

INSTANTIATE_TEST_SUITE_P(Stores, RetryPolicyHostTests, all_backends(), backend_name);

// ---- a perspective's failed apply -----------------------------------------------------------

TEST_P(RetryPolicyHostTests, Perspective_ImmediateRetriesThenBackoffInTheJitter_ThenItsMax) {
  auto service =
      shipping(RetryPolicies().on_exception<std::runtime_error>(two_at_once_then_backoff()));
  service->faults.fail("OrderTrail");  // the perspective throws std::runtime_error
  const whizbang::MessageId id = deliver_placed();
  const auto failed = [&] { return service->step().perspectives.failed; };
  // The first failure and two immediate retries: each due at once, no clock moved.
  for (int attempt = 1; attempt <= 3; ++attempt) {
    EXPECT_EQ(failed(), 1u) << "attempt " << attempt;
  }
  EXPECT_EQ(service->faults.count("OrderTrail"), 3);
  EXPECT_EQ(failed(), 0u) << "then the backoff";
  // The row's next attempt: 10 s ± 20 % from the third failure.
  std::optional<whizbang::PerspectiveEventRow> row = perspective_row(*service, id);
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row->attempts, 3);
  ASSERT_TRUE(row->scheduled_for.has_value());
  EXPECT_GE(*row->scheduled_for - clock_.now(), 8s);
  EXPECT_LE(*row->scheduled_for - clock_.now(), 12s);
  expect_due_between(8s, 12s, failed);
  // The fourth waits 20 s ± 20 %; the fifth is its last (max_attempts 5; the store's is 10).
  expect_due_between(16s, 24s, failed);
  row = perspective_row(*service, id);
  ASSERT_TRUE(row.has_value());
  EXPECT_TRUE(row->dead_lettered_at.has_value());
  EXPECT_EQ(row->attempts, 5);
  EXPECT_EQ(row->failure_reason, whizbang::FailureReason::MaxAttemptsExceeded);
  clock_.advance(1h);
  EXPECT_EQ(failed(), 0u);
  EXPECT_EQ(service->faults.count("OrderTrail"), 5);
}

TEST_P(RetryPolicyHostTests, Perspective_NonRetryableExceptionType_DeadLettersAtTheFirstFailure) {
  auto service = shipping(
      RetryPolicies().on_exception<std::runtime_error>(RetryPolicy::dead_letter_at_once()));
  service->faults.fail("OrderTrail");
  const whizbang::MessageId id = deliver_placed();
  EXPECT_EQ(service->step().perspectives.failed, 1u);
  const std::optional<whizbang::PerspectiveEventRow> row = perspective_row(*service, id);
  ASSERT_TRUE(row.has_value());
  EXPECT_TRUE(row->dead_lettered_at.has_value());
  EXPECT_EQ(row->attempts, 1);
  EXPECT_NE(row->error.find("projection failed"), std::string::npos) << row->error;
  clock_.advance(1h);
  EXPECT_EQ(service->step().perspectives.failed, 0u);
  EXPECT_EQ(service->faults.count("OrderTrail"), 1);
}

TEST_P(RetryPolicyHostTests, Perspective_NoPolicy_KeepsTheStoresSchedule) {
  auto service = shipping(std::nullopt);
  service->faults.fail("OrderTrail", 1);
  const whizbang::MessageId id = deliver_placed();
  EXPECT_EQ(service->step().perspectives.failed, 1u);
  const std::optional<whizbang::PerspectiveEventRow> row = perspective_row(*service, id);
  ASSERT_TRUE(row.has_value());
  ASSERT_TRUE(row->scheduled_for.has_value());
  EXPECT_EQ(*row->scheduled_for - clock_.now(), 60s);
  clock_.advance(59s);
  EXPECT_EQ(service->step().perspectives.applied, 0u);
  clock_.advance(2s);
  EXPECT_EQ(service->step().perspectives.applied, 1u);
}

// An immediate retry still holds its stream's later events: they apply after it, in order.
TEST_P(RetryPolicyHostTests, Perspective_ImmediateRetry_TheStreamsLaterEventsStillWait) {
  ServiceConfig orders_config{GetParam(), "orders", &transport_, &clock_, &log_, &dir_};
  Service orders(orders_config);
  RetryPolicy at_once;
  at_once.immediate_retries = 1;
  auto service = shipping(RetryPolicies().on_exception<std::runtime_error>(at_once));
  service->faults.fail("OrderTrail", 1);
  absl::StatusOr<whizbang::DeliveryReceipt> receipt =
      orders.host->dispatcher().send(place("o-1", 3));
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  settle({&orders, service.get()});  // no clock moved
  EXPECT_THAT(service->faults.keys("OrderTrail"), ElementsAre("o-1#1", "o-1#1", "o-1#2", "o-1#3"));
  auto model = service->store->load_perspective_model("faults::OrderTrailPerspective",
                                                      receipt->message_id.uuid());
  ASSERT_TRUE(model.ok() && model->has_value()) << model.status();
  EXPECT_EQ((*model)->model_json, R"({"steps":[1,2,3]})");
}

// ---- PostAllPerspectives / PostLifecycle stages (the lifecycle completion) ------------------

TEST_P(RetryPolicyHostTests, LifecycleStages_ImmediateRetriesThenBackoffInTheJitter_ThenItsMax) {
  auto service =
      shipping(RetryPolicies().on_exception<std::runtime_error>(two_at_once_then_backoff()));
  service->faults.fail("AllProjected");  // a PostAllPerspectives receptor: std::runtime_error
  deliver_placed();
  const auto failed = [&] { return service->step().perspectives.lifecycle_failed; };
  for (int attempt = 1; attempt <= 3; ++attempt) {
    EXPECT_EQ(failed(), 1u) << "attempt " << attempt << ": at once, one per cycle";
  }
  EXPECT_EQ(service->faults.count("AllProjected"), 3);
  EXPECT_EQ(failed(), 0u) << "then the backoff";
  expect_due_between(8s, 12s, failed);
  expect_due_between(16s, 24s, failed);
  const std::optional<whizbang::DeadLetter> dead =
      only_dead_letter(*service, whizbang::DeadLetterSource::LifecycleCompletion);
  ASSERT_TRUE(dead.has_value());
  EXPECT_EQ(dead->attempts, 5);
  EXPECT_EQ(dead->reason, whizbang::FailureReason::MaxAttemptsExceeded);
  clock_.advance(1h);
  EXPECT_EQ(failed(), 0u);
  EXPECT_EQ(service->faults.count("AllProjected"), 5);
  EXPECT_EQ(service->faults.count("LifecycleDone"), 0) << "PostLifecycle never got its turn";
}

TEST_P(RetryPolicyHostTests, LifecycleStages_NonRetryableExceptionType_DeadLetterAtOnce) {
  auto service = shipping(
      RetryPolicies().on_exception<std::runtime_error>(RetryPolicy::dead_letter_at_once()));
  service->faults.fail("AllProjected");
  deliver_placed();
  EXPECT_EQ(service->step().perspectives.lifecycle_failed, 1u);
  const std::optional<whizbang::DeadLetter> dead =
      only_dead_letter(*service, whizbang::DeadLetterSource::LifecycleCompletion);
  ASSERT_TRUE(dead.has_value());
  EXPECT_EQ(dead->attempts, 1);
  EXPECT_NE(dead->error.find("mailer down"), std::string::npos) << dead->error;
  clock_.advance(1h);
  EXPECT_EQ(service->step().perspectives.lifecycle_failed, 0u);
  EXPECT_EQ(service->faults.count("AllProjected"), 1);
}

TEST_P(RetryPolicyHostTests, LifecycleStages_NoPolicy_KeepTheStoresSchedule) {
  auto service = shipping(std::nullopt);
  service->faults.fail("AllProjected", 1);
  deliver_placed();
  EXPECT_EQ(service->step().perspectives.lifecycle_failed, 1u);
  clock_.advance(59s);
  EXPECT_EQ(service->step().perspectives.lifecycle_completed, 0u);
  clock_.advance(2s);
  EXPECT_EQ(service->step().perspectives.lifecycle_completed, 1u);
  EXPECT_EQ(service->faults.count("LifecycleDone"), 1);
}

// ---- a Detached stage's run, kept in the store ----------------------------------------------

TEST_P(RetryPolicyHostTests, DetachedWork_ImmediateRetriesThenBackoffInTheJitter_ThenItsMax) {
  HandRunExecutor executor;
  // DetachedAuditor throws an int: a rule for any thrown type.
  auto service = shipping(RetryPolicies().on_exception<int>(two_at_once_then_backoff()), &executor);
  service->faults.fail("DetachedAuditor");
  deliver_placed();
  EXPECT_EQ(service->step().inbox.handled, 1u);
  executor.run_all();  // its first run, on the executor: fails, due again at once
  EXPECT_EQ(service->faults.count("DetachedAuditor"), 1);
  const auto failed = [&] { return service->step().detached.failed; };
  EXPECT_EQ(failed(), 1u) << "the first immediate retry";
  EXPECT_EQ(failed(), 1u) << "the second";
  EXPECT_EQ(service->faults.count("DetachedAuditor"), 3);
  EXPECT_EQ(failed(), 0u) << "then the backoff";
  expect_due_between(8s, 12s, failed);
  expect_due_between(16s, 24s, failed);
  const std::optional<whizbang::DeadLetter> dead =
      only_dead_letter(*service, whizbang::DeadLetterSource::DetachedWork);
  ASSERT_TRUE(dead.has_value());
  EXPECT_EQ(dead->attempts, 5);
  EXPECT_EQ(dead->reason, whizbang::FailureReason::MaxAttemptsExceeded);
  EXPECT_EQ(dead->target, "faults::DetachedAuditor");
  clock_.advance(1h);
  EXPECT_EQ(failed(), 0u);
  EXPECT_EQ(service->faults.count("DetachedAuditor"), 5);
}

TEST_P(RetryPolicyHostTests, DetachedWork_NonRetryableExceptionType_DeadLettersAtOnce) {
  HandRunExecutor executor;
  auto service =
      shipping(RetryPolicies().on_exception<int>(RetryPolicy::dead_letter_at_once()), &executor);
  service->faults.fail("DetachedAuditor");
  deliver_placed();
  EXPECT_EQ(service->step().inbox.handled, 1u);
  executor.run_all();
  const std::optional<whizbang::DeadLetter> dead =
      only_dead_letter(*service, whizbang::DeadLetterSource::DetachedWork);
  ASSERT_TRUE(dead.has_value());
  EXPECT_EQ(dead->attempts, 1);
  clock_.advance(1h);
  EXPECT_EQ(service->step().detached.failed, 0u);
  EXPECT_EQ(service->faults.count("DetachedAuditor"), 1);
}

TEST_P(RetryPolicyHostTests, DetachedWork_NoPolicy_KeepsTheStoresSchedule) {
  HandRunExecutor executor;
  auto service = shipping(std::nullopt, &executor);
  service->faults.fail("DetachedAuditor", 1);
  deliver_placed();
  EXPECT_EQ(service->step().inbox.handled, 1u);
  executor.run_all();
  EXPECT_EQ(service->faults.count("DetachedAuditor"), 1);
  clock_.advance(59s);
  EXPECT_EQ(service->step().detached.ran, 0u);
  clock_.advance(2s);
  EXPECT_EQ(service->step().detached.ran, 1u);
  EXPECT_EQ(service->faults.count("DetachedAuditor"), 2);
}

}  // namespace faults::retry_policy_host_test
