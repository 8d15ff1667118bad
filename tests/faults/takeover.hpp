// Takeover: makes a second instance of a service take work over from the first at the worst
// moment, once a receptor of the first has fired and before its record is written: the first
// instance's leases lapse and the second runs a cycle. At once where the store admits another
// writer meanwhile; else (SQLite: one writer at a time) as soon as the first instance's
// transaction committed, the first moment the second could act.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <utility>

#include "fault_fixture.hpp"
#include "hooked_store.hpp"

namespace faults {

class Takeover {
 public:
  explicit Takeover(TestClock& clock) : clock_(clock) {}

  // Once `receptor` (its id, e.g. "faults::ShipmentNotice") fired in `first`.
  void after_firing_of(const std::string& receptor, HookedStore& first, Service& second) {
    first.before_record_receptor_invocations =
        [this, receptor, &first,
         &second](std::span<const whizbang::ReceptorInvocationRecord> records) {
          if (struck_ || records.empty() || records[0].receptor_id.view() != receptor) return;
          if (first.in_transaction() && first.writers_take_turns()) {
            after_commit_ = [this, &second] { strike(second); };
            return;
          }
          strike(second);
        };
    first.after_commit = [this] {
      if (after_commit_) std::exchange(after_commit_, {})();
    };
  }

  // The first instance's leases lapse and `second` runs a cycle, now.
  void strike(Service& second) {
    struck_ = true;
    clock_.advance(std::chrono::seconds(301));
    second.step();
  }

  bool struck() const { return struck_; }

 private:
  TestClock& clock_;
  bool struck_ = false;
  std::function<void()> after_commit_;
};

}  // namespace faults
