#include "whizbang/testing/inbox_faults.hpp"

#include <memory>
#include <utility>

#include "inbox_faults.hpp"  // the workers' seam (this library sees the workers' private headers)

namespace whizbang::fault_injection {

ScopedInboxFaults::ScopedInboxFaults(std::string service_name, InboxFaults faults)
    : service_name_(std::move(service_name)) {
  auto installed = std::make_shared<workers_internal::InboxFaults>();
  installed->split_completion = faults.split_completion;
  installed->before_completion = std::move(faults.before_completion);
  workers_internal::set_inbox_faults(service_name_, std::move(installed));
}

ScopedInboxFaults::~ScopedInboxFaults() {
  workers_internal::set_inbox_faults(service_name_, nullptr);
}

}  // namespace whizbang::fault_injection
