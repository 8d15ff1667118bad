#include "kept_destinations.hpp"

#include <mutex>
#include <unordered_set>

namespace whizbang::dispatch_internal {

std::string_view keep_destination(const std::string& destination) {
  static std::mutex mutex;
  // Never destroyed: a receipt borrowing from it may be read during static destruction. A node
  // container, so the kept strings stay where they are as it grows.
  static auto* const kept = new std::unordered_set<std::string>();
  const std::lock_guard lock(mutex);
  return *kept->insert(destination).first;
}

}  // namespace whizbang::dispatch_internal
