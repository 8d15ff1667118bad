// Journal: records which receptor ran, for which message, under which context.
#pragma once

#include <algorithm>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <whizbang/security/security_context.hpp>

namespace dispatch_test {

class Journal {
 public:
  struct Entry {
    std::string receptor;
    std::string key;
    whizbang::MessageId message_id;
    std::string user_id;
    std::string tenant_id;
  };

  void add(std::string receptor, std::string key) {
    Entry entry{std::move(receptor), std::move(key), {}, {}, {}};
    if (const auto* context = whizbang::MessageContext::current()) {
      entry.message_id = context->message_id;
      entry.user_id = context->security.user_id;
      entry.tenant_id = context->security.tenant_id;
    }
    std::lock_guard lock(mutex_);
    entries_.push_back(std::move(entry));
  }
  std::vector<Entry> entries() const {
    std::lock_guard lock(mutex_);
    return entries_;
  }
  int count(std::string_view receptor) const {
    std::lock_guard lock(mutex_);
    return static_cast<int>(std::count_if(entries_.begin(), entries_.end(),
                                          [&](const Entry& e) { return e.receptor == receptor; }));
  }
  std::vector<std::string> order() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const Entry& e : entries_) out.push_back(e.receptor + ":" + e.key);
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
};

}  // namespace dispatch_test
