#include "inbox_faults.hpp"

#include <functional>
#include <map>
#include <mutex>

namespace whizbang::workers_internal {
namespace {

struct InstalledFaults {
  std::mutex mutex;
  // Ordered with a transparent comparator: looked up by string_view (Debian's Abseil maps take
  // only absl::string_view). A handful of entries, read once per worker.
  std::map<std::string, std::shared_ptr<const InboxFaults>, std::less<>> by_service;
};

InstalledFaults& installed() {
  static InstalledFaults faults;
  return faults;
}

}  // namespace

std::shared_ptr<const InboxFaults> inbox_faults_of(std::string_view service_name) {
  InstalledFaults& faults = installed();
  std::lock_guard lock(faults.mutex);
  if (faults.by_service.empty()) return nullptr;
  auto found = faults.by_service.find(service_name);
  return found == faults.by_service.end() ? nullptr : found->second;
}

void set_inbox_faults(const std::string& service_name, std::shared_ptr<const InboxFaults> faults) {
  InstalledFaults& installed_faults = installed();
  std::lock_guard lock(installed_faults.mutex);
  if (faults == nullptr) {
    installed_faults.by_service.erase(service_name);
  } else {
    installed_faults.by_service[service_name] = std::move(faults);
  }
}

}  // namespace whizbang::workers_internal
