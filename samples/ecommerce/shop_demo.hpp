// The sample's scenario: two services in one process, each with its own SQLite store, talking
// through the in-process transport. run() prints what happened and checks it.
#pragma once

#include <atomic>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include <spdlog/sinks/ringbuffer_sink.h>
#include <whizbang/host/service_host.hpp>
#include <whizbang/observability/metrics.hpp>
#include <whizbang/transport/in_process_transport.hpp>

#include "shop/services.hpp"

namespace shop {

class ShopDemo {
 public:
  ShopDemo(std::filesystem::path data_dir, std::ostream& out);
  ~ShopDemo();

  // Runs the scenario; returns the number of checks that failed (0: the account is right).
  int run();

 private:
  struct Service;

  absl::Status start();
  std::unique_ptr<Service> make_service(const std::string& name, const whizbang::Registry& registry,
                                        bool crash_first_reservation);
  void settle();
  void check(bool ok, const std::string& what);
  int log_count(std::string_view text) const;

  std::filesystem::path data_dir_;
  std::ostream& out_;
  std::atomic<std::int64_t> clock_offset_ms_{0};
  whizbang::InProcessTransport transport_;
  Mailer mailer_;
  CustomerStats stats_;
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> log_sink_;
  std::shared_ptr<spdlog::logger> logger_;
  std::unique_ptr<Service> orders_;
  std::unique_ptr<Service> notifications_;
  int failures_ = 0;
  bool crashed_once_ = false;
};

}  // namespace shop
