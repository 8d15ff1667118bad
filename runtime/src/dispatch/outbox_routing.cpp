#include "whizbang/dispatch/outbox_routing.hpp"

#include <string>

#include "absl/strings/ascii.h"
#include "whizbang/internal/absl_view.hpp"
#include "whizbang/message/wire_routing.hpp"

namespace whizbang {

bool is_owned(const MessageTypeInfo& type, std::span<const std::string> owned_domains) {
  const std::string_view ns = wire_namespace(type.wire_name);
  for (const std::string& domain : owned_domains) {
    if (namespace_within(ns, domain)) return true;
  }
  return false;
}

std::string default_destination(const MessageTypeInfo& type) {
  // A type shared with .NET goes where a Whizbang .NET service publishes and subscribes to it:
  // its lower-cased namespace.
  if (!type.dotnet_type.empty())
    return absl::AsciiStrToLower(internal::absl_view(wire_namespace(type.wire_name)));
  std::string_view name = wire_simple_name(type.wire_name);
  if (name.starts_with("Product") || name.starts_with("CreateProduct")) return "products";
  if (name.starts_with("Inventory")) return "inventory";
  if (name.starts_with("Order")) return "orders";
  const std::string_view suffix = type.kind == MessageKind::Event ? "Event" : "Command";
  if (name.size() > suffix.size() && name.ends_with(suffix)) name.remove_suffix(suffix.size());
  return absl::AsciiStrToLower(internal::absl_view(name));
}

}  // namespace whizbang
