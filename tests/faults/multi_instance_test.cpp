// MultiInstanceTests: several instances of one service on one SQLite file. A row whose lease
// lapsed and that another instance took over is not handled again by the first; two live
// instances competing for the same rows handle each exactly once.
#include <set>

#include "fault_fixture.hpp"
#include "hooked_store.hpp"

namespace faults {
namespace {

using namespace std::chrono_literals;

class MultiInstanceTests : public ::testing::Test {
 protected:
  // One more instance of the service "warehouse" on the shared file. `group`: the inbox's
  // handlings per commit. The takeover tests commit each handling on its own: only then can
  // another instance commit between two handlings of one batch (a group holds SQLite's write
  // lock from its first handling to its commit).
  ServiceConfig warehouse(std::chrono::milliseconds renewal = std::chrono::hours(1),
                          std::size_t group = 100) {
    ServiceConfig config{Backend::Sqlite, "warehouse", &transport_, &clock_, &log_, &dir_};
    config.configure = [renewal, group](whizbang::HostOptions& options) {
      options.lease_renewal_interval = renewal;
      options.inbox_max_group = group;
    };
    return config;
  }
  static std::function<std::unique_ptr<whizbang::WorkStore>(std::unique_ptr<whizbang::WorkStore>)>
  hooked(HookedStore*& out) {
    return [&out](std::unique_ptr<whizbang::WorkStore> store) {
      auto hooked = std::make_unique<HookedStore>(std::move(store));
      out = hooked.get();
      return hooked;
    };
  }
  int fired(const Service& a, const Service& b, const std::string& key) {
    int n = 0;
    for (const Service* service : {&a, &b}) {
      for (const std::string& k : service->faults.keys("ShipOrderHandler")) n += k == key;
    }
    return n;
  }

  TestDir dir_;
  TestClock clock_;
  LogCapture log_;
  whizbang::InProcessTransport transport_;
};

TEST_F(MultiInstanceTests, RowTakenOverBetweenTwoHandlings_IsNotHandledAgain) {
  HookedStore* hooks = nullptr;
  // Renewed before every row; each handling commits on its own.
  ServiceConfig first_config = warehouse(/*renewal=*/0ms, /*group=*/1);
  first_config.wrap_store = hooked(hooks);
  Service first(first_config);
  Service second(warehouse());
  deliver(transport_, ship("o-1"));
  deliver(transport_, ship("o-2"));
  int renewals = 0;
  hooks->before_renew_leases = [&](std::span<const whizbang::WorkLease>) {
    // Before the first instance goes on to o-2 (after o-1 committed): o-2's lease lapses, and
    // the second instance claims and handles it.
    if (++renewals != 3) return absl::OkStatus();
    clock_.advance(301s);
    EXPECT_EQ(second.step().inbox.handled, 1u);
    return absl::OkStatus();
  };
  const whizbang::HostCycle cycle = first.step();
  EXPECT_EQ(cycle.inbox.handled, 1u);
  EXPECT_EQ(cycle.inbox.lease_lost, 1u);
  EXPECT_EQ(fired(first, second, "o-1"), 1);
  EXPECT_EQ(fired(first, second, "o-2"), 1) << "handled by the second instance only";
}

TEST_F(MultiInstanceTests, RowTakenOverJustBeforeItsHandling_FiresNoReceptorHere) {
  HookedStore* hooks = nullptr;
  // No renewal within the batch; each handling commits on its own.
  ServiceConfig first_config = warehouse(std::chrono::hours(1), /*group=*/1);
  first_config.wrap_store = hooked(hooks);
  Service first(first_config);
  Service second(warehouse());
  deliver(transport_, ship("o-1"));
  deliver(transport_, ship("o-2"));
  int begins = 0;
  hooks->before_begin = [&] {
    if (++begins != 2) return;  // the handling of o-2
    clock_.advance(301s);
    EXPECT_EQ(second.step().inbox.handled, 1u);
  };
  const whizbang::HostCycle cycle = first.step();
  EXPECT_EQ(cycle.inbox.handled, 1u);
  EXPECT_EQ(cycle.inbox.lease_lost, 1u);
  EXPECT_EQ(fired(first, second, "o-2"), 1);
  EXPECT_GE(log_.count("[EventId 142 LeaseLost]"), 1);
}

// A group's handlings share its transaction: the group renews their leases once, when it opens,
// and the rows stay this instance's until it commits.
TEST_F(MultiInstanceTests, GroupOfHandlings_RenewsItsLeasesOnceWhenItOpens) {
  HookedStore* hooks = nullptr;
  ServiceConfig config = warehouse();
  config.wrap_store = hooked(hooks);
  Service first(config);
  for (const char* order : {"o-1", "o-2", "o-3", "o-4", "o-5"}) deliver(transport_, ship(order));
  int renewals = 0;
  hooks->before_renew_leases = [&](std::span<const whizbang::WorkLease>) {
    ++renewals;
    return absl::OkStatus();
  };
  const whizbang::HostCycle cycle = first.step();
  EXPECT_EQ(cycle.inbox.handled, 5u);
  EXPECT_EQ(renewals, 1) << "one renewal for the group, none per handling";
}

// Rows another instance took over before the group opened: the group's renewal finds them gone
// and none of their receptors fires here.
TEST_F(MultiInstanceTests, RowsTakenOverBeforeTheirGroupOpened_FireNoReceptorHere) {
  HookedStore* hooks = nullptr;
  ServiceConfig first_config = warehouse();
  first_config.wrap_store = hooked(hooks);
  Service first(first_config);
  Service second(warehouse());
  deliver(transport_, ship("o-1"));
  deliver(transport_, ship("o-2"));
  int begins = 0;
  hooks->before_begin = [&] {
    if (++begins != 1) return;  // the group's transaction
    clock_.advance(301s);
    EXPECT_EQ(second.step().inbox.handled, 2u);
  };
  const whizbang::HostCycle cycle = first.step();
  EXPECT_EQ(cycle.inbox.handled, 0u);
  EXPECT_EQ(cycle.inbox.lease_lost, 2u);
  EXPECT_EQ(fired(first, second, "o-1"), 1);
  EXPECT_EQ(fired(first, second, "o-2"), 1);
}

TEST_F(MultiInstanceTests, TwoLiveInstancesOnOneFile_HandleEveryRowOnce) {
  Service first(warehouse());
  Service second(warehouse());
  ASSERT_TRUE(first.host->start().ok());
  ASSERT_TRUE(second.host->start().ok());
  constexpr int kOrders = 200;
  for (int i = 0; i < kOrders; ++i) deliver(transport_, ship("o-" + std::to_string(i)));
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (first.faults.count("ShipOrderHandler") + second.faults.count("ShipOrderHandler") <
             kOrders &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  first.host->stop();
  second.host->stop();
  std::multiset<std::string> handled;
  for (const Service* service : {&first, &second}) {
    for (const std::string& key : service->faults.keys("ShipOrderHandler")) handled.insert(key);
  }
  EXPECT_EQ(handled.size(), static_cast<std::size_t>(kOrders));
  for (int i = 0; i < kOrders; ++i) {
    EXPECT_EQ(handled.count("o-" + std::to_string(i)), 1u) << "o-" << i;
  }
}

}  // namespace
}  // namespace faults
