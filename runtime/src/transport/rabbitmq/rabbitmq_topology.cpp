#include "whizbang/transport/rabbitmq/rabbitmq_topology.hpp"

#include <vector>

#include "whizbang/internal/text.hpp"

namespace whizbang {
namespace {

constexpr std::string_view kEnvelopePrefix = "Whizbang.Core.Observability.MessageEnvelope`1[[";
constexpr std::string_view kEnvelopeSuffix = "]], Whizbang.Core";

}  // namespace

std::string rabbitmq_queue_name(std::string_view service_name, std::string_view exchange) {
  return std::string(service_name) + "-" + std::string(exchange);
}

std::string rabbitmq_dead_letter_exchange(std::string_view exchange) {
  return std::string(exchange) + ".dlx";
}

std::string rabbitmq_dead_letter_queue(std::string_view queue) {
  return std::string(queue) + ".dlq";
}

std::string rabbitmq_binding_key(std::string_view pattern) {
  if (pattern.empty()) return "#";
  if (pattern.back() != '*') return std::string(pattern);
  pattern.remove_suffix(1);
  const std::size_t last_dot = pattern.rfind('.');
  if (last_dot == std::string_view::npos) return "#";
  return std::string(pattern.substr(0, last_dot + 1)) + "#";
}

std::string rabbitmq_envelope_type(std::string_view message_type) {
  std::string name(kEnvelopePrefix);
  name.append(message_type);
  name.append(kEnvelopeSuffix);
  return name;
}

std::string message_type_from_envelope_type(std::string_view envelope_type) {
  const std::size_t open = envelope_type.find("[[");
  const std::size_t close = envelope_type.rfind("]]");
  if (open == std::string_view::npos || close == std::string_view::npos || close < open + 2) {
    return {};
  }
  // "Ns.Type, Assembly, Version=1.0.0.0, Culture=neutral, PublicKeyToken=null": keep the parts
  // .NET's lookup keeps (it strips the same three).
  std::string_view inner = envelope_type.substr(open + 2, close - open - 2);
  std::string result;
  while (!inner.empty()) {
    const std::size_t comma = inner.find(',');
    const std::string_view part = internal::trim_spaces(inner.substr(0, comma));
    inner = comma == std::string_view::npos ? std::string_view() : inner.substr(comma + 1);
    if (part.starts_with("Version=") || part.starts_with("Culture=") ||
        part.starts_with("PublicKeyToken=")) {
      continue;
    }
    if (!result.empty()) result += ", ";
    result.append(part);
  }
  return result;
}

}  // namespace whizbang
