// The soak's two service processes (crash_restart_worker `serve`, one per service, over RabbitMQ
// on PostgreSQL schemas): started, killed with SIGKILL and restarted, sampled from /proc, and
// finally stopped with SIGTERM. Each start is an incarnation with its own series of samples: a
// restarted process starts a new series, so growth is judged per incarnation (verdicts.hpp).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proc_sample.hpp"

namespace soak {

struct Incarnation {
  std::string service;
  int number = 1;  // 1 for the first process of the service, 2 after its first kill, ...
  pid_t pid = 0;
  double started_s = 0;
  bool killed = false;
  std::vector<ProcessSample> samples;
};

class ServiceProcesses {
 public:
  // Each process runs `worker <data_dir> serve <service> <amqp_url>`, its output appended to
  // <data_dir>/<service>.log, its side effects to <data_dir>/effects.journal.
  ServiceProcesses(std::filesystem::path worker, std::filesystem::path data_dir,
                   std::string amqp_url, std::vector<std::string> services);
  ~ServiceProcesses();  // SIGKILL of whatever still runs: no process outlives the driver
  ServiceProcesses(const ServiceProcesses&) = delete;
  ServiceProcesses& operator=(const ServiceProcesses&) = delete;

  // Starts every service in the order given, each ready (subscribed) before the next starts.
  absl::Status start_all(double now_s);
  // SIGKILL of the service's process, then its successor (not awaited: the others run on).
  absl::Status kill_and_restart(std::size_t index, double now_s);
  // A sample of every running process; a process that ended by itself is restarted, and the
  // error says so.
  absl::Status sample(double now_s);
  // SIGTERM to every process; each must exit with 0 within `seconds`.
  absl::Status stop_all(int seconds);

  std::size_t size() const { return services_.size(); }
  const std::string& service(std::size_t index) const { return services_[index]; }
  const Incarnation& current(std::size_t index) const { return incarnations_[current_[index]]; }
  const std::vector<Incarnation>& incarnations() const { return incarnations_; }
  std::set<pid_t> killed_pids() const;
  const std::filesystem::path& journal() const { return journal_; }

 private:
  absl::Status spawn(std::size_t index, double now_s);
  absl::Status await_ready(std::size_t index);

  std::filesystem::path worker_;
  std::filesystem::path data_dir_;
  std::filesystem::path journal_;
  std::string amqp_url_;
  std::vector<std::string> services_;
  std::vector<Incarnation> incarnations_;
  std::vector<std::size_t> current_;  // per service: its incarnation in incarnations_
  std::vector<bool> running_;
};

}  // namespace soak
