// The sample's scenario with each service as a process of its own (shop_service), joined by a
// RabbitMQ broker: the same order, the same crash (a real one this time), the same account.
// Each service keeps its rows in a SQLite file of its own, or, given a PostgreSQL conninfo, in a
// schema of its own on that server (shop_orders, shop_notifications). run() starts both
// processes, restarts notifications after its crash, waits until the work has settled, stops
// both with SIGTERM and checks what their journals, logs, metrics and stores say.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <iosfwd>
#include <string>

namespace shop {

class DistributedDemo {
 public:
  // `postgres_conninfo` empty: SQLite stores in `data_dir`.
  DistributedDemo(std::filesystem::path service_binary, std::string amqp_url,
                  std::filesystem::path data_dir, std::string postgres_conninfo, std::ostream& out);
  ~DistributedDemo();

  // Returns the number of checks that failed (0: the account is right), or -1 when the run
  // itself could not be done.
  int run();

 private:
  struct Process {
    std::string service;
    int http_port = 0;
    pid_t pid = 0;
  };

  // Where `service` keeps its rows: a file path or a conninfo (open_work_store's locations).
  std::string store_location(const std::string& service) const;
  // A fresh start: the last run's stores removed (files deleted, schemas dropped).
  bool remove_previous_run();
  bool start(Process& process, bool send_demo_order);
  bool await_ready(const Process& process);
  // Waits until the order's work is done everywhere, restarting notifications after its crash.
  bool settle(const std::string& order_stream);
  bool stop(Process& process);
  std::string scrape_metrics(const Process& process);
  int count_in_log(const std::string& service, const std::string& text) const;
  // Both services ran with --signing require and the run's key, and neither refused an envelope.
  bool signed_throughout() const;
  void check(bool ok, const std::string& what);

  std::filesystem::path service_binary_;
  std::string amqp_url_;
  std::filesystem::path data_dir_;
  std::string postgres_conninfo_;
  std::ostream& out_;
  Process orders_{"orders"};
  Process notifications_{"notifications"};
  bool notifications_crashed_ = false;
  int failures_ = 0;
};

}  // namespace shop
