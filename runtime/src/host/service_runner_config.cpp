#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "service_runner_otel_env.hpp"
#include "service_runner_transport_flags.hpp"
#include "whizbang/host/service_runner.hpp"
#include "whizbang/host/service_runner_circuit_breaker.hpp"
#include "whizbang/host/service_runner_retry.hpp"
#include "whizbang/internal/absl_view.hpp"

namespace whizbang {
namespace {

constexpr std::string_view kKnownOptions =
    "--service, --store, --transport, --http-port, --http-address, --signing, "
    "--trusted-scope-services, --otlp-endpoint, --otlp-header, --trace-sampling, --retry, "
    "--command-inboxes, --keep-shared-inbox, --circuit-breaker";

absl::Status set_port(ServiceRunnerConfig& config, std::string_view value) {
  int port = 0;
  if (!absl::SimpleAtoi(internal::absl_view(value), &port) || port < -1 || port > 65535) {
    return absl::InvalidArgumentError("--http-port: '" + std::string(value) +
                                      "' is not a port (0-65535, or -1 for none)");
  }
  config.http_port = port;
  return absl::OkStatus();
}

// CLI11's "--store: 1 required TEXT missing" as the runner has always said it.
absl::Status parse_error(const CLI::ParseError& error) {
  const std::string message = error.what();
  if (const std::size_t colon = message.find(": ");
      colon != std::string::npos && message.ends_with(" missing")) {
    return absl::InvalidArgumentError(message.substr(0, colon) + " needs a value");
  }
  return absl::InvalidArgumentError(message);
}

absl::Status set_sampling(ServiceRunnerConfig& config, std::string_view value,
                          std::string_view source = "--trace-sampling") {
  double ratio = 0;
  if (!absl::SimpleAtod(internal::absl_view(value), &ratio) || !(ratio >= 0 && ratio <= 1)) {
    return absl::InvalidArgumentError(std::string(source) + ": '" + std::string(value) +
                                      "' is not a ratio from 0 to 1");
  }
  config.trace_sampling = ratio;
  return absl::OkStatus();
}

// "%2C" -> ",": OTEL_EXPORTER_OTLP_HEADERS's values are percent-encoded, and so are ours.
std::string percent_decoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() &&
        absl::ascii_isxdigit(static_cast<unsigned char>(text[i + 1])) &&
        absl::ascii_isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      const auto digit = [](char c) {
        return absl::ascii_isdigit(static_cast<unsigned char>(c))
                   ? c - '0'
                   : absl::ascii_tolower(static_cast<unsigned char>(c)) - 'a' + 10;
      };
      out.push_back(static_cast<char>(digit(text[i + 1]) * 16 + digit(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// One "name=value" into the configuration's headers; the name is trimmed and must not be empty.
absl::Status add_header(ServiceRunnerConfig& config, std::string_view pair, bool decode,
                        std::string_view source) {
  const std::size_t equals = pair.find('=');
  std::string name(absl::StripAsciiWhitespace(internal::absl_view(pair.substr(0, equals))));
  if (equals == std::string_view::npos || name.empty()) {
    return absl::InvalidArgumentError(std::string(source) + ": '" + std::string(pair) +
                                      "' is not NAME=VALUE");
  }
  std::string value(absl::StripAsciiWhitespace(internal::absl_view(pair.substr(equals + 1))));
  if (decode) {
    name = percent_decoded(name);
    value = percent_decoded(value);
  }
  if (name.find_first_of("\r\n:") != std::string::npos ||
      value.find_first_of("\r\n") != std::string::npos) {
    return absl::InvalidArgumentError(std::string(source) + ": header '" + name +
                                      "' has a line break or a colon in its name");
  }
  config.otlp_headers.emplace_back(std::move(name), std::move(value));
  return absl::OkStatus();
}

// The headers: the --otlp-header flags, or else the first of WHIZBANG_OTLP_HEADERS,
// OTEL_EXPORTER_OTLP_TRACES_HEADERS and OTEL_EXPORTER_OTLP_HEADERS that is set.
absl::Status set_headers(ServiceRunnerConfig& config, const std::vector<std::string>& flags) {
  for (const std::string& flag : flags) {
    if (absl::Status added = add_header(config, flag, false, "--otlp-header"); !added.ok()) {
      return added;
    }
  }
  const runner_otel::EnvValue environment = runner_otel::first_set(
      {"WHIZBANG_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS"});
  if (!flags.empty() || environment.value == nullptr) return absl::OkStatus();
  for (absl::string_view pair : absl::StrSplit(environment.value, ',', absl::SkipWhitespace())) {
    if (absl::Status added =
            add_header(config, std::string_view(pair.data(), pair.size()), true, environment.name);
        !added.ok()) {
      return added;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ServiceRunnerConfig> parse_service_runner_config(int argc,
                                                                const char* const argv[]) {
  ServiceRunnerConfig config;
  // The operator API's token: the environment only (docs/guide/19-operating-services.md).
  if (const char* token = std::getenv("WHIZBANG_ADMIN_TOKEN")) config.admin_token = token;
  std::string port;  // checked below, whether from the flag or the environment
  CLI::App app("a Whizbang service");
  app.set_help_flag();  // the runner has no --help: a service's main() owns its usage
  app.allow_extras();   // unknown words are reported below, with the known options
  // Each flag falls back to its environment variable (unset or empty: the default); the last of
  // a repeated flag wins.
  const auto option = [&app](const char* flag, const char* environment, std::string& into) {
    app.add_option(flag, into)
        ->envname(environment)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  };
  option("--service", "WHIZBANG_SERVICE", config.service_name);
  option("--store", "WHIZBANG_STORE", config.store);
  option("--transport", "WHIZBANG_TRANSPORT", config.transport);
  option("--http-port", "WHIZBANG_HTTP_PORT", port);
  option("--http-address", "WHIZBANG_HTTP_ADDRESS", config.http_address);
  option("--signing", "WHIZBANG_SIGNING", config.signing);
  option("--trusted-scope-services", "WHIZBANG_TRUSTED_SCOPE_SERVICES",
         config.scope_trusted_services);
  option("--otlp-endpoint", "WHIZBANG_OTLP_ENDPOINT", config.otlp_endpoint);
  std::string sampling;
  option("--trace-sampling", "WHIZBANG_TRACE_SAMPLING", sampling);
  std::vector<std::string> headers;  // repeatable; WHIZBANG_OTLP_HEADERS read in set_headers
  app.add_option("--otlp-header", headers)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  option("--command-inboxes", "WHIZBANG_COMMAND_INBOXES", config.command_inboxes);
  std::string keep_shared;
  option("--keep-shared-inbox", "WHIZBANG_KEEP_SHARED_INBOX", keep_shared);
  // Repeatable; else WHIZBANG_RETRY, rules separated by ';' (docs/guide/14-running-services.md).
  app.add_option("--retry", config.retry_policies)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  runner_flags::TransportFlags transport_flags;  // --amqp-*, own events: checked below
  runner_flags::add_transport_flags(app, transport_flags);
  app.add_option("--circuit-breaker", config.circuit_breakers)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return parse_error(error);
  }
  if (const std::vector<std::string> extras = app.remaining(); !extras.empty()) {
    return absl::InvalidArgumentError(
        "unknown option '" + extras[0].substr(0, extras[0].find('=')) +
        "' (known: " + std::string(kKnownOptions) + runner_flags::known_transport_flags() + ")");
  }
  if (!port.empty()) {
    if (absl::Status status = set_port(config, port); !status.ok()) return status;
  }
  if (absl::Status status = runner_flags::apply_transport_flags(transport_flags, config);
      !status.ok()) {
    return status;
  }
  if (!sampling.empty()) {
    if (absl::Status status = set_sampling(config, sampling); !status.ok()) return status;
  } else if (const runner_otel::EnvValue ratio = runner_otel::sampler_ratio(); ratio.value) {
    if (absl::Status status = set_sampling(config, ratio.value, ratio.name); !status.ok()) {
      return status;
    }
  }
  if (absl::Status status = set_headers(config, headers); !status.ok()) return status;
  if (!keep_shared.empty()) {
    if (keep_shared != "true" && keep_shared != "false") {
      return absl::InvalidArgumentError("--keep-shared-inbox: '" + keep_shared +
                                        "' is not true or false");
    }
    config.keep_shared_inbox = keep_shared == "true";
  }
  if (const char* retry = std::getenv("WHIZBANG_RETRY");
      config.retry_policies.empty() && retry != nullptr) {
    for (absl::string_view rule : absl::StrSplit(retry, ';', absl::SkipWhitespace())) {
      config.retry_policies.emplace_back(absl::StripAsciiWhitespace(rule));
    }
  }
  if (absl::StatusOr<RetryPolicies> policies = parse_retry_policy_specs(config.retry_policies);
      !policies.ok()) {
    return policies.status();
  }
  if (const char* breakers = std::getenv("WHIZBANG_CIRCUIT_BREAKER");
      config.circuit_breakers.empty() && breakers != nullptr) {
    for (absl::string_view rule : absl::StrSplit(breakers, ';', absl::SkipWhitespace())) {
      config.circuit_breakers.emplace_back(absl::StripAsciiWhitespace(rule));
    }
  }
  if (absl::StatusOr<CircuitBreakerRules> rules =
          parse_circuit_breaker_specs(config.circuit_breakers);
      !rules.ok()) {
    return rules.status();
  }
  // OpenTelemetry's standard variables, below our flags and WHIZBANG_* variables.
  runner_otel::fill_unset(config);
  if (config.service_name.empty()) {
    return absl::InvalidArgumentError(
        "no service name: give --service NAME, WHIZBANG_SERVICE or OTEL_SERVICE_NAME");
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

CommandInboxes command_inboxes_from_config(const ServiceRunnerConfig& config) {
  CommandInboxes inboxes;
  inboxes.keep_shared_inbox = config.keep_shared_inbox;
  inboxes.namespaces.clear();  // "none": every command on the shared inbox
  if (config.command_inboxes == "none") return inboxes;
  for (absl::string_view name : absl::StrSplit(config.command_inboxes, ',')) {
    name = absl::StripAsciiWhitespace(name);
    if (!name.empty()) inboxes.namespaces.emplace_back(name.data(), name.size());
  }
  return inboxes;
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
