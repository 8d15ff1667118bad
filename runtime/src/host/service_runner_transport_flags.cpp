#include "service_runner_transport_flags.hpp"

#include <chrono>
#include <cstdint>
#include <fstream>
#include <optional>

#include "CLI/CLI.hpp"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "whizbang/internal/absl_view.hpp"

namespace whizbang::runner_flags {
namespace {

using std::chrono::milliseconds;

enum Flag : std::size_t {
  kHeartbeat,
  kPrefetch,
  kUnroutedGrace,
  kConnectTimeout,
  kRpcTimeout,
  kConfirmTimeout,
  kReconnectInitialDelay,
  kReconnectMaxDelay,
  kMaxMessageBytes,
  kConsumePollInterval,
  kDeadLetterExchanges,
  kCaCert,
  kClientCert,
  kClientKey,
  kDropOwnEvents,
  kLocalOnlyEvents,
  kFlagCount,
};

struct Name {
  const char* flag;
  const char* environment;
};

constexpr std::array<Name, kFlagCount> kNames = {{
    {"--amqp-heartbeat", "WHIZBANG_AMQP_HEARTBEAT"},
    {"--amqp-prefetch", "WHIZBANG_AMQP_PREFETCH"},
    {"--amqp-unrouted-grace", "WHIZBANG_AMQP_UNROUTED_GRACE"},
    {"--amqp-connect-timeout", "WHIZBANG_AMQP_CONNECT_TIMEOUT"},
    {"--amqp-rpc-timeout", "WHIZBANG_AMQP_RPC_TIMEOUT"},
    {"--amqp-confirm-timeout", "WHIZBANG_AMQP_CONFIRM_TIMEOUT"},
    {"--amqp-reconnect-initial-delay", "WHIZBANG_AMQP_RECONNECT_INITIAL_DELAY"},
    {"--amqp-reconnect-max-delay", "WHIZBANG_AMQP_RECONNECT_MAX_DELAY"},
    {"--amqp-max-message-bytes", "WHIZBANG_AMQP_MAX_MESSAGE_BYTES"},
    {"--amqp-consume-poll-interval", "WHIZBANG_AMQP_CONSUME_POLL_INTERVAL"},
    {"--amqp-dead-letter-exchanges", "WHIZBANG_AMQP_DEAD_LETTER_EXCHANGES"},
    {"--amqp-ca-cert", "WHIZBANG_AMQP_CA_CERT"},
    {"--amqp-client-cert", "WHIZBANG_AMQP_CLIENT_CERT"},
    {"--amqp-client-key", "WHIZBANG_AMQP_CLIENT_KEY"},
    {"--drop-own-events", "WHIZBANG_DROP_OWN_EVENTS"},
    {"--local-only-events", "WHIZBANG_LOCAL_ONLY_EVENTS"},
}};
static_assert(std::tuple_size_v<decltype(TransportFlags::values)> == kFlagCount);

constexpr milliseconds kHour = std::chrono::hours(1);

absl::Status invalid(Flag flag, std::string_view value, const std::string& expected) {
  return absl::InvalidArgumentError(std::string(kNames[flag].flag) + " (" +
                                    kNames[flag].environment + "): '" + std::string(value) +
                                    "' is not " + expected);
}

// "500ms", "10s", "5m", "1h", or "0".
std::optional<milliseconds> duration_of(std::string_view text) {
  if (text == "0") return milliseconds(0);
  constexpr std::pair<std::string_view, std::int64_t> kUnits[] = {
      {"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}};
  for (const auto& [suffix, millis] : kUnits) {
    if (!text.ends_with(suffix)) continue;
    std::int64_t count = 0;
    if (!absl::SimpleAtoi(internal::absl_view(text.substr(0, text.size() - suffix.size())),
                          &count) ||
        count < 0 || count > (std::int64_t{1} << 40)) {
      return std::nullopt;
    }
    return milliseconds(count * millis);
  }
  return std::nullopt;
}

// A duration from `low` to `high` into `into`.
absl::Status set_duration(const TransportFlags& flags, Flag flag, milliseconds low,
                          milliseconds high, milliseconds& into) {
  const std::string& value = flags.values[flag];
  if (value.empty()) return absl::OkStatus();
  const std::optional<milliseconds> duration = duration_of(value);
  if (!duration || *duration < low || *duration > high) {
    std::string expected(low.count() == 0 ? "a duration up to " : "a duration from 1ms to ");
    expected += high == kHour ? "1h" : std::to_string(high.count() / 1000) + "s";
    expected += low.count() == 0 ? " (500ms, 10s, 5m; 0 for none)" : " (500ms, 10s, 5m)";
    return invalid(flag, value, expected);
  }
  into = *duration;
  return absl::OkStatus();
}

absl::Status set_bool(const TransportFlags& flags, Flag flag, bool& into) {
  const std::string& value = flags.values[flag];
  if (value.empty()) return absl::OkStatus();
  if (value != "true" && value != "false") return invalid(flag, value, "true or false");
  into = value == "true";
  return absl::OkStatus();
}

// "1048576", "64KiB", "16MiB": from 1 byte to 512 MiB.
absl::Status set_bytes(const TransportFlags& flags, Flag flag, std::size_t& into) {
  std::string_view value = flags.values[flag];
  if (value.empty()) return absl::OkStatus();
  std::uint64_t unit = 1;
  if (value.ends_with("KiB")) unit = 1024;
  if (value.ends_with("MiB")) unit = 1024 * 1024;
  const std::string_view digits = unit == 1 ? value : value.substr(0, value.size() - 3);
  std::uint64_t count = 0;
  if (!absl::SimpleAtoi(internal::absl_view(digits), &count) || count == 0 ||
      count > (std::uint64_t{512} << 20) / unit) {
    return invalid(flag, value, "a size from 1 byte to 512MiB (1048576, 64KiB, 16MiB)");
  }
  into = static_cast<std::size_t>(count * unit);
  return absl::OkStatus();
}

// A PEM file for TLS: it must be readable now, not at the first connect.
absl::Status set_file(const TransportFlags& flags, Flag flag, std::string& into) {
  const std::string& value = flags.values[flag];
  if (value.empty()) return absl::OkStatus();
  if (!std::ifstream(value).good()) return invalid(flag, value, "a readable file");
  into = value;
  return absl::OkStatus();
}

// "shop::OrderPlaced, audit::*": names, a '*' only at a name's end.
absl::Status set_local_only(const TransportFlags& flags, std::vector<std::string>& into) {
  const std::string& value = flags.values[kLocalOnlyEvents];
  std::vector<std::string> patterns;
  for (absl::string_view part : absl::StrSplit(value, ',', absl::SkipWhitespace())) {
    part = absl::StripAsciiWhitespace(part);
    const std::size_t star = part.find('*');
    if (star != absl::string_view::npos && star + 1 != part.size()) {
      return invalid(kLocalOnlyEvents, value,
                     "a comma-separated list of event wire names ('*' only at a name's end)");
    }
    patterns.emplace_back(part.data(), part.size());
  }
  into = std::move(patterns);
  return absl::OkStatus();
}

}  // namespace

void add_transport_flags(CLI::App& app, TransportFlags& flags) {
  for (std::size_t flag = 0; flag < kFlagCount; ++flag) {
    app.add_option(kNames[flag].flag, flags.values[flag])
        ->envname(kNames[flag].environment)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }
}

absl::Status apply_transport_flags(const TransportFlags& flags, ServiceRunnerConfig& config) {
  RabbitMqOptions& amqp = config.amqp;
  // AMQP negotiates the heartbeat in whole seconds, up to 65535.
  if (const std::string& value = flags.values[kHeartbeat]; !value.empty()) {
    const std::optional<milliseconds> heartbeat = duration_of(value);
    if (!heartbeat || heartbeat->count() % 1000 != 0 || *heartbeat > std::chrono::seconds(65535)) {
      return invalid(kHeartbeat, value, "whole seconds up to 65535s (10s, 1m; 0 turns it off)");
    }
    amqp.heartbeat = std::chrono::duration_cast<std::chrono::seconds>(*heartbeat);
  }
  if (const std::string& value = flags.values[kPrefetch]; !value.empty()) {
    int prefetch = 0;
    if (!absl::SimpleAtoi(internal::absl_view(value), &prefetch) || prefetch < 1 ||
        prefetch > 65535) {
      return invalid(kPrefetch, value, "a count from 1 to 65535");
    }
    amqp.prefetch = static_cast<std::uint16_t>(prefetch);
  }
  const milliseconds one_ms(1);
  absl::Status status =
      set_duration(flags, kUnroutedGrace, milliseconds(0), kHour, amqp.unrouted_grace);
  if (status.ok()) {
    status = set_duration(flags, kConnectTimeout, one_ms, kHour, amqp.connect_timeout);
  }
  if (status.ok()) status = set_duration(flags, kRpcTimeout, one_ms, kHour, amqp.rpc_timeout);
  if (status.ok()) {
    status = set_duration(flags, kConfirmTimeout, one_ms, kHour, amqp.confirm_timeout);
  }
  if (status.ok()) {
    status =
        set_duration(flags, kReconnectInitialDelay, one_ms, kHour, amqp.reconnect_initial_delay);
  }
  if (status.ok()) {
    status = set_duration(flags, kReconnectMaxDelay, one_ms, kHour, amqp.reconnect_max_delay);
  }
  if (status.ok()) {
    status = set_duration(flags, kConsumePollInterval, one_ms, std::chrono::seconds(60),
                          amqp.consume_poll_interval);
  }
  if (status.ok()) status = set_bytes(flags, kMaxMessageBytes, amqp.max_message_bytes);
  if (status.ok()) status = set_bool(flags, kDeadLetterExchanges, amqp.dead_letter_exchanges);
  if (status.ok()) status = set_file(flags, kCaCert, amqp.tls.ca_cert_file);
  if (status.ok()) status = set_file(flags, kClientCert, amqp.tls.client_cert_file);
  if (status.ok()) status = set_file(flags, kClientKey, amqp.tls.client_key_file);
  if (status.ok()) status = set_bool(flags, kDropOwnEvents, config.drop_own_events);
  if (status.ok()) status = set_local_only(flags, config.local_only_events);
  if (!status.ok()) return status;
  if (amqp.reconnect_max_delay < amqp.reconnect_initial_delay) {
    return absl::InvalidArgumentError(
        "--amqp-reconnect-max-delay: shorter than --amqp-reconnect-initial-delay (" +
        std::to_string(amqp.reconnect_max_delay.count()) + "ms < " +
        std::to_string(amqp.reconnect_initial_delay.count()) + "ms)");
  }
  if (amqp.tls.client_cert_file.empty() != amqp.tls.client_key_file.empty()) {
    return absl::InvalidArgumentError(
        "--amqp-client-cert and --amqp-client-key: give both (a client certificate and its key) "
        "or neither");
  }
  const bool tls_files = !amqp.tls.ca_cert_file.empty() || !amqp.tls.client_cert_file.empty();
  if (tls_files && config.transport.starts_with("amqp://")) {
    return absl::InvalidArgumentError(
        "--amqp-ca-cert, --amqp-client-cert: TLS files need an amqps:// transport");
  }
  return absl::OkStatus();
}

std::string known_transport_flags() {
  std::string known;
  for (const Name& name : kNames) {
    known += ", ";
    known += name.flag;
  }
  return known;
}

}  // namespace whizbang::runner_flags

namespace whizbang {

absl::StatusOr<RabbitMqOptions> rabbitmq_options_from_config(const ServiceRunnerConfig& config) {
  // "amqp:" alone: the URL from WHIZBANG_AMQP_URL.
  const std::string url = config.transport == "amqp:" ? std::string() : config.transport;
  absl::StatusOr<RabbitMqOptions> broker = rabbitmq_options_from_url(url);
  if (!broker.ok()) return broker.status();
  RabbitMqOptions options = config.amqp;
  options.host = broker->host;
  options.port = broker->port;
  options.vhost = broker->vhost;
  options.user = broker->user;
  options.password = broker->password;
  options.tls.enabled = broker->tls.enabled;
  options.connection_name = config.service_name;
  return options;
}

OwnEvents own_events_from_config(const ServiceRunnerConfig& config) {
  OwnEvents own_events;
  own_events.drop_on_receipt = config.drop_own_events;
  own_events.local_only = config.local_only_events;
  return own_events;
}

}  // namespace whizbang
