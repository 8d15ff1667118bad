#include "crash_restart/journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace crash_restart::journal {
namespace {

int journal_fd() {
  static const int fd = [] {
    const char* path = std::getenv("WHIZBANG_CRASH_JOURNAL");
    if (path == nullptr || *path == '\0') return -1;
    return ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  }();
  return fd;
}

}  // namespace

void record(std::string_view effect, std::string_view key) {
  const int fd = journal_fd();
  if (fd < 0) return;
  std::string line;
  line.reserve(effect.size() + key.size() + 16);
  line.append(effect).append(" ").append(key).append(" ").append(std::to_string(::getpid()));
  line.push_back('\n');
  // One write of a short line to an O_APPEND file lands whole, whatever other processes append.
  (void)!::write(fd, line.data(), line.size());
}

}  // namespace crash_restart::journal
