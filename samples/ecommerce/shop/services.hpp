// Plain services the receptors depend on; the hosts register them in their ServiceRegistry and
// the generated code wires them into receptor constructors.
#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <string>

namespace shop {

// Writes e-mails to a file instead of sending them.
class Mailer {
 public:
  explicit Mailer(std::filesystem::path outbox_file) : file_(std::move(outbox_file)) {}
  void send(const std::string& to, const std::string& subject);
  int sent() const;

 private:
  mutable std::mutex mutex_;
  std::filesystem::path file_;
  int sent_ = 0;
};

// Counts what happened in one service, for the account the sample prints. With a file, every
// note is also appended to it (one line each), so the distributed run can count across
// processes and restarts.
class ServiceJournal {
 public:
  explicit ServiceJournal(std::string service, std::filesystem::path file = {})
      : service_(std::move(service)), file_(std::move(file)) {}
  void note(const std::string& what);
  int count(const std::string& what) const;
  const std::string& service() const { return service_; }

 private:
  mutable std::mutex mutex_;
  std::string service_;
  std::filesystem::path file_;
  std::map<std::string, int> counts_;
};

// How many lines of a journal file are exactly `what`.
int count_in_journal_file(const std::filesystem::path& file, const std::string& what);

// A customer read model: orders and spend per customer.
class CustomerStats {
 public:
  void record(const std::string& customer_id, const std::string& order_id, double amount);
  int orders(const std::string& customer_id) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::map<std::string, double>> orders_;  // customer -> order -> amount
};

}  // namespace shop
