// SoakJournalTests: the soak's exactly-once account of the side effects outside every store
// (journal_check.hpp) on made-up journals: a repeat is allowed only where a killed process fired
// the effect, a lost effect or a stranger line is a finding.
#include "journal_check.hpp"

#include <gtest/gtest.h>

#include "crash_restart/journal.hpp"

#include <unistd.h>
#include <fstream>

namespace soak_journal_test {

constexpr pid_t kAlive = 100;
constexpr pid_t kKilled = 200;

class SoakJournalTests : public ::testing::Test {
 protected:
  SoakJournalTests() {
    for (int i = 0; i < 2; ++i) ledger_.record_sent(0);
  }
  ~SoakJournalTests() override { std::filesystem::remove(path_); }

  // Every effect once for each order, by `pid`.
  void every_effect_once(pid_t pid) {
    for (int order = 0; order < ledger_.sent(); ++order) {
      for (const std::string_view effect : crash_restart::journal::kEffects) {
        line(std::string(effect), order, pid);
      }
    }
  }
  void line(const std::string& effect, int order, pid_t pid) {
    std::ofstream(path_, std::ios::app)
        << effect << ' ' << soak::OrderLedger::order_id(order) << ' ' << pid << '\n';
  }
  std::vector<std::string> findings() {
    return soak::journal_findings(path_, ledger_, {kKilled}, repeats_);
  }

  soak::OrderLedger ledger_;
  std::filesystem::path path_ = std::filesystem::temp_directory_path() /
                                ("soak-journal-" + std::to_string(getpid()) + ".txt");
  int repeats_ = -1;
};

TEST_F(SoakJournalTests, EveryEffectOncePerOrder_NoFinding) {
  every_effect_once(kAlive);
  EXPECT_TRUE(findings().empty());
  EXPECT_EQ(repeats_, 0);
}

TEST_F(SoakJournalTests, AnEffectTwiceInAProcessNeverKilled_IsAFinding) {
  every_effect_once(kAlive);
  line("label-printed", 1, kAlive);
  const std::vector<std::string> found = findings();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("label-printed happened more than once"), std::string::npos) << found[0];
}

TEST_F(SoakJournalTests, AnEffectRepeatedAfterAKilledProcessFiredIt_CountedNotAFinding) {
  every_effect_once(kAlive);
  line("order-shipped", 0, kKilled);  // fired, then killed before its commit: handled again
  EXPECT_TRUE(findings().empty());
  EXPECT_EQ(repeats_, 1);
}

TEST_F(SoakJournalTests, AnEffectLostForAnOrder_IsAFinding) {
  line("order-shipped", 0, kAlive);  // order 1 never shipped, nothing else happened either
  const std::vector<std::string> found = findings();
  bool lost_shipment = false;
  for (const std::string& finding : found) {
    lost_shipment |= finding == "order-shipped never happened for 1 orders";
  }
  EXPECT_TRUE(lost_shipment) << ::testing::PrintToString(found);
}

TEST_F(SoakJournalTests, LinesForNoOrderOfThisRun_AreAFinding) {
  every_effect_once(kAlive);
  line("order-shipped", 7, kAlive);  // the run sent two orders
  line("unknown-effect", 0, kAlive);
  const std::vector<std::string> found = findings();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], "2 journal lines for no order this run sent");
}

}  // namespace soak_journal_test
