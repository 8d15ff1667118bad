// Fault injection into a service's inbox, for tests and demonstrations: link Whizbang::testing.
// Not for production: nothing in HostOptions or InboxWorkerOptions turns these on.
//
// While a ScopedInboxFaults lives, the inbox workers made for its service (by a ServiceHost or
// directly) run with its faults:
//
//   whizbang::fault_injection::ScopedInboxFaults faults(
//       "notifications", {.split_completion = true,
//                         .before_completion = [](const whizbang::WorkItem& item) {
//                           return absl::UnavailableError("crash before the completion");
//                         }});
//
// (The namespace is not `testing`: GoogleTest owns `::testing`, and test code inside
// `namespace whizbang` would find both.)
//   auto host = whizbang::ServiceHost::create(registry, services, std::move(options));
//
// `split_completion` commits a handling's writes and its inbox completion in two transactions
// (the reference implementation's shape), so a crash between them shows emission deduplication
// at work (docs/guide/05-emission-identity.md). `before_completion` runs just before the
// completion commits; a non-OK status acts as a crash there: nothing more is recorded, the leases
// lapse and the rows are offered again.
#pragma once

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "whizbang/store/work_item.hpp"

namespace whizbang::fault_injection {

struct InboxFaults {
  bool split_completion = false;
  std::function<absl::Status(const WorkItem&)> before_completion;
};

class ScopedInboxFaults {
 public:
  // For the inbox workers of `service_name` made from now until this is destroyed.
  ScopedInboxFaults(std::string service_name, InboxFaults faults);
  ~ScopedInboxFaults();
  ScopedInboxFaults(const ScopedInboxFaults&) = delete;
  ScopedInboxFaults& operator=(const ScopedInboxFaults&) = delete;

 private:
  std::string service_name_;
};

}  // namespace whizbang::fault_injection
