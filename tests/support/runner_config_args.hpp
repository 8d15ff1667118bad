// The process runner's configuration as a test gives it: flags after a program name, and
// environment variables set for one scope (docs/guide/14-running-services.md).
#pragma once

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <whizbang/host/service_runner.hpp>

namespace whizbang_test {

// parse_service_runner_config over `args`, as if they followed the program's name.
inline absl::StatusOr<whizbang::ServiceRunnerConfig> parse_runner_args(
    std::vector<const char*> args) {
  args.insert(args.begin(), "service");
  return whizbang::parse_service_runner_config(static_cast<int>(args.size()), args.data());
}

// Sets (or, with nullptr, unsets) an environment variable for its lifetime, then restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) saved_ = old;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (saved_) {
      setenv(name_, saved_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

}  // namespace whizbang_test
