// What /proc says about a process: its resident set (VmRSS) and its open file descriptors.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

namespace soak {

struct ProcessSample {
  double at_s = 0;            // seconds since the run started
  std::int64_t rss_kib = -1;  // -1: the process is gone
  int fds = -1;
};

inline ProcessSample sample_process(pid_t pid, double at_s) {
  ProcessSample sample;
  sample.at_s = at_s;
  const std::filesystem::path proc = "/proc/" + std::to_string(static_cast<long>(pid));
  std::ifstream status(proc / "status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) != 0) continue;
    std::istringstream fields(line.substr(6));
    fields >> sample.rss_kib;  // "  12345 kB"
    break;
  }
  std::error_code error;
  int fds = 0;
  for (std::filesystem::directory_iterator entry(proc / "fd", error), end; !error && entry != end;
       entry.increment(error)) {
    ++fds;
  }
  if (!error) sample.fds = fds;
  return sample;
}

}  // namespace soak
