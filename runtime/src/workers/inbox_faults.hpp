// The inbox worker's fault seam: what Whizbang::testing (whizbang/testing/inbox_faults.hpp)
// installs for a service's inbox workers, and nothing else does. Read once, when a worker is
// made, so a worker without faults pays nothing per handling.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "whizbang/store/work_item.hpp"

namespace whizbang::workers_internal {

struct InboxFaults {
  // The handler's writes commit first and the completion in a second transaction (the
  // reference's shape, kept to exercise emission deduplication), with no group commit.
  bool split_completion = false;
  // Runs just before the completion commits; a non-OK status acts as a crash at that point
  // (nothing more is recorded, the open group's handlings included; the leases lapse and the rows
  // are re-offered).
  std::function<absl::Status(const WorkItem&)> before_completion;
};

// The faults installed for `service_name`'s inbox workers; null when none are.
std::shared_ptr<const InboxFaults> inbox_faults_of(std::string_view service_name);
// Installs (or, with null, removes) the faults of `service_name`'s inbox workers made from now on.
void set_inbox_faults(const std::string& service_name, std::shared_ptr<const InboxFaults> faults);

}  // namespace whizbang::workers_internal
