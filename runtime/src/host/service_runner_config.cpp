#include <cstdlib>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "internal/absl_view.hpp"
#include "whizbang/host/service_runner.hpp"

namespace whizbang {
namespace {

struct Setting {
  std::string_view flag;
  const char* environment;
  std::string ServiceRunnerConfig::* text = nullptr;
};

constexpr std::string_view kPortFlag = "--http-port";

absl::Status set_port(ServiceRunnerConfig& config, std::string_view value) {
  int port = 0;
  if (!absl::SimpleAtoi(internal::absl_view(value), &port) || port < -1 || port > 65535) {
    return absl::InvalidArgumentError("--http-port: '" + std::string(value) +
                                      "' is not a port (0-65535, or -1 for none)");
  }
  config.http_port = port;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ServiceRunnerConfig> parse_service_runner_config(int argc,
                                                                const char* const argv[]) {
  const Setting settings[] = {
      {"--service", "WHIZBANG_SERVICE", &ServiceRunnerConfig::service_name},
      {"--store", "WHIZBANG_STORE", &ServiceRunnerConfig::store},
      {"--transport", "WHIZBANG_TRANSPORT", &ServiceRunnerConfig::transport},
      {"--http-address", "WHIZBANG_HTTP_ADDRESS", &ServiceRunnerConfig::http_address},
      {"--signing", "WHIZBANG_SIGNING", &ServiceRunnerConfig::signing},
      {"--trusted-scope-services", "WHIZBANG_TRUSTED_SCOPE_SERVICES",
       &ServiceRunnerConfig::scope_trusted_services},
  };
  ServiceRunnerConfig config;
  // The environment first; flags override it.
  for (const Setting& setting : settings) {
    if (const char* value = std::getenv(setting.environment); value != nullptr && *value != '\0') {
      config.*setting.text = value;
    }
  }
  if (const char* port = std::getenv("WHIZBANG_HTTP_PORT"); port != nullptr && *port != '\0') {
    if (absl::Status status = set_port(config, port); !status.ok()) return status;
  }
  for (int i = 1; i < argc; ++i) {
    std::string_view argument = argv[i];
    std::string_view value;
    bool has_value = false;
    if (const std::size_t equals = argument.find('='); equals != std::string_view::npos) {
      value = argument.substr(equals + 1);
      argument = argument.substr(0, equals);
      has_value = true;
    } else if (i + 1 < argc) {
      value = argv[i + 1];
      has_value = true;
      ++i;
    }
    if (!has_value) {
      return absl::InvalidArgumentError(std::string(argument) + " needs a value");
    }
    if (argument == kPortFlag) {
      if (absl::Status status = set_port(config, value); !status.ok()) return status;
      continue;
    }
    bool known = false;
    for (const Setting& setting : settings) {
      if (argument != setting.flag) continue;
      config.*setting.text = std::string(value);
      known = true;
    }
    if (!known) {
      return absl::InvalidArgumentError(
          "unknown option '" + std::string(argument) +
          "' (known: --service, --store, --transport, --http-port, --http-address, --signing, "
          "--trusted-scope-services)");
    }
  }
  if (config.service_name.empty()) {
    return absl::InvalidArgumentError("no service name: give --service NAME or WHIZBANG_SERVICE");
  }
  if (absl::StatusOr<EnvelopeSigning> signing = signing_from_config(config); !signing.ok()) {
    return signing.status();
  }
  return config;
}

absl::StatusOr<EnvelopeSigning> signing_from_config(const ServiceRunnerConfig& config) {
  EnvelopeSigning signing;
  if (config.signing == "off") {
    signing.mode = EnvelopeSigningMode::Off;
  } else if (config.signing == "sign") {
    signing.mode = EnvelopeSigningMode::Sign;
  } else if (config.signing == "require") {
    signing.mode = EnvelopeSigningMode::Require;
  } else {
    return absl::InvalidArgumentError("--signing: '" + config.signing +
                                      "' is not off, sign or require");
  }
  absl::StatusOr<SigningKeyRing> keys = SigningKeyRing::from_environment();
  if (!keys.ok()) return keys.status();
  signing.keys = *std::move(keys);
  if (absl::Status valid = signing.validate(); !valid.ok()) return valid;
  return signing;
}

std::optional<std::vector<std::string>> scope_trusted_services_from_config(
    const ServiceRunnerConfig& config) {
  if (config.scope_trusted_services == "*") return std::nullopt;
  std::vector<std::string> services;
  for (absl::string_view name : absl::StrSplit(config.scope_trusted_services, ',')) {
    name = absl::StripAsciiWhitespace(name);
    if (!name.empty()) services.emplace_back(name.data(), name.size());
  }
  return services;
}

}  // namespace whizbang
