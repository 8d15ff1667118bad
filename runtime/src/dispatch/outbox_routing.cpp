#include "whizbang/dispatch/outbox_routing.hpp"

#include <string>

#include "whizbang/internal/text.hpp"

namespace whizbang {
namespace {

// The name after the last "::" or "." separator (one backward scan: this runs per outbox row).
std::string_view simple_name(std::string_view wire_name) {
  for (std::size_t i = wire_name.size(); i > 0; --i) {
    const char c = wire_name[i - 1];
    if (c == '.' || (c == ':' && i >= 2 && wire_name[i - 2] == ':')) return wire_name.substr(i);
  }
  return wire_name;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// The namespace part of a wire name: "shop::orders::OrderCreated" -> "shop::orders".
std::string_view namespace_of(std::string_view wire_name) {
  const std::string_view name = simple_name(wire_name);
  if (name.size() == wire_name.size()) return {};
  std::string_view prefix = wire_name.substr(0, wire_name.size() - name.size());
  prefix.remove_suffix(prefix.ends_with("::") ? 2 : 1);
  return prefix;
}

}  // namespace

bool is_owned(const MessageTypeInfo& type, std::span<const std::string> owned_domains) {
  using internal::equals_ignoring_case;
  const std::string_view ns = namespace_of(type.wire_name);
  for (const std::string& domain : owned_domains) {
    if (equals_ignoring_case(ns, domain)) return true;
    for (std::string_view separator : {"::", "."}) {
      if (ns.size() > domain.size() + separator.size() &&
          equals_ignoring_case(ns.substr(0, domain.size()), domain) &&
          ns.substr(domain.size(), separator.size()) == separator) {
        return true;
      }
    }
  }
  return false;
}

std::string default_destination(const MessageTypeInfo& type) {
  // A type shared with .NET goes where a Whizbang .NET service publishes and subscribes to it:
  // its lower-cased namespace.
  if (!type.dotnet_type.empty()) return lower(namespace_of(type.wire_name));
  std::string_view name = simple_name(type.wire_name);
  if (name.starts_with("Product") || name.starts_with("CreateProduct")) return "products";
  if (name.starts_with("Inventory")) return "inventory";
  if (name.starts_with("Order")) return "orders";
  const std::string_view suffix = type.kind == MessageKind::Event ? "Event" : "Command";
  if (name.size() > suffix.size() && name.ends_with(suffix)) name.remove_suffix(suffix.size());
  return lower(name);
}

}  // namespace whizbang
