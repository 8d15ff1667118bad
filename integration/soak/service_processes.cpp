#include "service_processes.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

extern char** environ;

namespace soak {
namespace {

// The exit code of `pid` once it ended (reaped; -signal when a signal ended it), else 1000.
int reap_if_ended(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) != pid) return 1000;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

}  // namespace

ServiceProcesses::ServiceProcesses(std::filesystem::path worker, std::filesystem::path data_dir,
                                   std::string amqp_url, std::vector<std::string> services)
    : worker_(std::move(worker)),
      data_dir_(std::move(data_dir)),
      journal_(data_dir_ / "effects.journal"),
      amqp_url_(std::move(amqp_url)),
      services_(std::move(services)),
      current_(services_.size(), 0),
      running_(services_.size(), false) {}

ServiceProcesses::~ServiceProcesses() {
  for (std::size_t i = 0; i < services_.size(); ++i) {
    if (!running_[i]) continue;
    kill(current(i).pid, SIGKILL);
    waitpid(current(i).pid, nullptr, 0);
  }
}

absl::Status ServiceProcesses::spawn(std::size_t index, double now_s) {
  // Everything the child needs is built before fork(): the driver has threads (its store's), so
  // the child may only make system calls until it execs.
  const std::string service = services_[index];
  std::vector<std::string> args = {worker_.string(), data_dir_.string(), "serve", service,
                                   amqp_url_};
  std::vector<std::string> environment = {"WHIZBANG_CRASH_JOURNAL=" + journal_.string()};
  for (char** variable = environ; *variable != nullptr; ++variable) {
    if (std::strncmp(*variable, "WHIZBANG_CRASH_JOURNAL=", 23) != 0) {
      environment.emplace_back(*variable);
    }
  }
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (std::string& variable : environment) envp.push_back(variable.data());
  envp.push_back(nullptr);
  const std::string log = (data_dir_ / (service + ".log")).string();
  const int log_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) return absl::InternalError("cannot open " + log + ": " + std::strerror(errno));
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    // Dies with the driver, however the driver ends.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(125);
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(log_fd);
  if (pid < 0) return absl::InternalError(std::string("fork: ") + std::strerror(errno));
  Incarnation incarnation;
  incarnation.service = service;
  incarnation.pid = pid;
  incarnation.started_s = now_s;
  for (const Incarnation& earlier : incarnations_) {
    if (earlier.service == service) incarnation.number = earlier.number + 1;
  }
  incarnations_.push_back(std::move(incarnation));
  current_[index] = incarnations_.size() - 1;
  running_[index] = true;
  return absl::OkStatus();
}

absl::Status ServiceProcesses::await_ready(std::size_t index) {
  const pid_t pid = current(index).pid;
  const std::filesystem::path ready = data_dir_ / ("ready-" + std::to_string(pid));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!std::filesystem::exists(ready)) {
    if (const int code = reap_if_ended(pid); code != 1000) {
      running_[index] = false;
      return absl::InternalError(services_[index] + " process " + std::to_string(pid) +
                                 " ended while starting (" + std::to_string(code) +
                                 "); see its log in " + data_dir_.string());
    }
    if (std::chrono::steady_clock::now() > deadline) {
      return absl::DeadlineExceededError(services_[index] + " never became ready");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a file appears, not a sync
  }
  return absl::OkStatus();
}

absl::Status ServiceProcesses::start_all(double now_s) {
  for (std::size_t i = 0; i < services_.size(); ++i) {
    if (absl::Status spawned = spawn(i, now_s); !spawned.ok()) return spawned;
    if (absl::Status ready = await_ready(i); !ready.ok()) return ready;
  }
  return absl::OkStatus();
}

absl::Status ServiceProcesses::kill_and_restart(std::size_t index, double now_s) {
  Incarnation& victim = incarnations_[current_[index]];
  kill(victim.pid, SIGKILL);
  int status = 0;
  waitpid(victim.pid, &status, 0);
  running_[index] = false;
  victim.killed = true;
  if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
    (void)spawn(index, now_s);
    return absl::InternalError(services_[index] + " process " + std::to_string(victim.pid) +
                               " had ended before it was killed");
  }
  return spawn(index, now_s);
}

absl::Status ServiceProcesses::sample(double now_s) {
  std::string ended;
  for (std::size_t i = 0; i < services_.size(); ++i) {
    Incarnation& incarnation = incarnations_[current_[i]];
    if (const int code = reap_if_ended(incarnation.pid); code != 1000) {
      running_[i] = false;
      ended += services_[i] + " process " + std::to_string(incarnation.pid) + " ended by itself (" +
               std::to_string(code) + "); ";
      if (absl::Status spawned = spawn(i, now_s); !spawned.ok()) return spawned;
      continue;
    }
    incarnation.samples.push_back(sample_process(incarnation.pid, now_s));
  }
  if (!ended.empty()) return absl::InternalError(ended + "restarted");
  return absl::OkStatus();
}

absl::Status ServiceProcesses::stop_all(int seconds) {
  for (std::size_t i = 0; i < services_.size(); ++i) {
    if (running_[i]) kill(current(i).pid, SIGTERM);
  }
  std::string problems;
  for (std::size_t i = 0; i < services_.size(); ++i) {
    if (!running_[i]) continue;
    const pid_t pid = current(i).pid;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    int code = reap_if_ended(pid);
    while (code == 1000 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polling an exit
      code = reap_if_ended(pid);
    }
    if (code == 1000) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    running_[i] = false;
    if (code != 0) {
      problems += services_[i] + " process " + std::to_string(pid) +
                  (code == 1000 ? " did not stop on SIGTERM"
                                : " exited with " + std::to_string(code) + " on SIGTERM") +
                  "; ";
    }
  }
  if (!problems.empty()) return absl::InternalError(problems);
  return absl::OkStatus();
}

std::set<pid_t> ServiceProcesses::killed_pids() const {
  std::set<pid_t> killed;
  for (const Incarnation& incarnation : incarnations_) {
    if (incarnation.killed) killed.insert(incarnation.pid);
  }
  return killed;
}

}  // namespace soak
