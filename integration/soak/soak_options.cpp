#include "soak_options.hpp"

#include <cstdlib>
#include <string_view>

namespace soak {
namespace {

absl::StatusOr<long> whole_number(std::string_view flag, const char* text) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 0 || value > 7 * 24 * 3600) {
    return absl::InvalidArgumentError(std::string(flag) + ": not a number of seconds: " + text);
  }
  return value;
}

}  // namespace

absl::StatusOr<SoakOptions> parse_soak_options(int argc, char** argv) {
  SoakOptions options;
#ifdef SOAK_DEFAULT_WORKER
  options.worker = SOAK_DEFAULT_WORKER;
#endif
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) return absl::InvalidArgumentError(std::string(flag) + " needs a value");
    const char* value = argv[++i];
    if (flag == "--amqp") {
      options.amqp_url = value;
    } else if (flag == "--postgres") {
      options.postgres = value;
    } else if (flag == "--out") {
      options.out_dir = value;
    } else if (flag == "--worker") {
      options.worker = value;
    } else if (flag == "--rate") {
      char* end = nullptr;
      options.rate = std::strtod(value, &end);
      if (end == value || *end != '\0' || !(options.rate > 0 && options.rate <= 10000)) {
        return absl::InvalidArgumentError(std::string("--rate: not a rate: ") + value);
      }
    } else if (flag == "--growth-limit") {
      char* end = nullptr;
      const double percent = std::strtod(value, &end);
      if (end == value || *end != '\0' || !(percent > 0 && percent <= 1000)) {
        return absl::InvalidArgumentError(std::string("--growth-limit: not a percentage: ") +
                                          value);
      }
      options.growth_limit = percent / 100;
    } else {
      absl::StatusOr<long> number = whole_number(flag, value);
      if (!number.ok()) return number.status();
      const std::chrono::seconds seconds(*number);
      if (flag == "--minutes") {
        options.duration = seconds * 60;
      } else if (flag == "--seconds") {
        options.duration = seconds;
      } else if (flag == "--kill-every") {
        options.kill_every = seconds;
      } else if (flag == "--report-every") {
        options.report_every = seconds;
      } else if (flag == "--warm-up") {
        options.warm_up = seconds;
      } else if (flag == "--sample-every") {
        options.sample_every = seconds;
      } else if (flag == "--drain-timeout") {
        options.drain_timeout = seconds;
      } else {
        return absl::InvalidArgumentError(std::string("unknown flag ") + std::string(flag));
      }
    }
  }
  if (options.amqp_url.empty() || options.postgres.empty() || options.out_dir.empty()) {
    return absl::InvalidArgumentError("--amqp, --postgres and --out are required");
  }
  if (options.worker.empty()) return absl::InvalidArgumentError("--worker is required");
  if (options.duration.count() == 0 || options.report_every.count() == 0 ||
      options.sample_every.count() == 0) {
    return absl::InvalidArgumentError("the duration and the intervals must be at least 1 s");
  }
  return options;
}

}  // namespace soak
