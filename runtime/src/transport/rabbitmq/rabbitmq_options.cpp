#include "whizbang/transport/rabbitmq/rabbitmq_options.hpp"

#include <amqp.h>

#include <cstdlib>
#include <vector>

namespace whizbang {

std::string RabbitMqOptions::describe() const {
  std::string vhost_path = vhost == "/" ? "" : "/" + vhost;
  return std::string(tls.enabled ? "amqps" : "amqp") + "://" + user + "@" + host + ":" +
         std::to_string(port) + vhost_path;
}

absl::StatusOr<RabbitMqOptions> rabbitmq_options_from_url(std::string_view url) {
  std::string text(url);
  if (text.empty()) {
    const char* from_environment = std::getenv("WHIZBANG_AMQP_URL");
    if (from_environment == nullptr || *from_environment == '\0') {
      return absl::InvalidArgumentError("no AMQP URL given and WHIZBANG_AMQP_URL is not set");
    }
    text = from_environment;
  }
  // amqp_parse_url decodes in place and points into the buffer.
  std::vector<char> buffer(text.begin(), text.end());
  buffer.push_back('\0');
  amqp_connection_info parsed;
  amqp_default_connection_info(&parsed);
  if (amqp_parse_url(buffer.data(), &parsed) != AMQP_STATUS_OK) {
    // Not the URL itself: it may hold a password.
    return absl::InvalidArgumentError(
        "not an AMQP URL (expected amqp[s]://[user[:password]@]host[:port][/vhost])");
  }
  RabbitMqOptions options;
  options.host = parsed.host;
  options.port = parsed.port;
  // "amqp://host/" parses to the empty vhost, which RabbitMQ cannot have: people mean "/".
  options.vhost = *parsed.vhost == '\0' ? "/" : parsed.vhost;
  options.user = parsed.user;
  options.password = parsed.password;
  options.tls.enabled = parsed.ssl != 0;
  return options;
}

}  // namespace whizbang
