#include "shop/services.hpp"

#include <fstream>

namespace shop {

void Mailer::send(const std::string& to, const std::string& subject) {
  std::lock_guard lock(mutex_);
  std::ofstream out(file_, std::ios::app);
  out << "To: " << to << "\nSubject: " << subject << "\n\n";
  ++sent_;
}

int Mailer::sent() const {
  std::lock_guard lock(mutex_);
  return sent_;
}

void ServiceJournal::note(const std::string& what) {
  std::lock_guard lock(mutex_);
  ++counts_[what];
  if (!file_.empty()) {
    std::ofstream out(file_, std::ios::app);
    out << what << "\n";
  }
}

int count_in_journal_file(const std::filesystem::path& file, const std::string& what) {
  std::ifstream in(file);
  int n = 0;
  for (std::string line; std::getline(in, line);) n += line == what ? 1 : 0;
  return n;
}

int ServiceJournal::count(const std::string& what) const {
  std::lock_guard lock(mutex_);
  const auto it = counts_.find(what);
  return it == counts_.end() ? 0 : it->second;
}

void CustomerStats::record(const std::string& customer_id, const std::string& order_id,
                           double amount) {
  std::lock_guard lock(mutex_);
  orders_[customer_id][order_id] = amount;  // idempotent: the same order counts once
}

int CustomerStats::orders(const std::string& customer_id) const {
  std::lock_guard lock(mutex_);
  const auto it = orders_.find(customer_id);
  return it == orders_.end() ? 0 : static_cast<int>(it->second.size());
}

}  // namespace shop
