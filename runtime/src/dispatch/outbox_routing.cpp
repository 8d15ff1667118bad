#include "whizbang/outbox_routing.hpp"

#include <string>

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

}  // namespace

std::string default_destination(const MessageTypeInfo& type) {
  std::string_view name = simple_name(type.wire_name);
  if (name.starts_with("Product") || name.starts_with("CreateProduct")) return "products";
  if (name.starts_with("Inventory")) return "inventory";
  if (name.starts_with("Order")) return "orders";
  const std::string_view suffix = type.kind == MessageKind::Event ? "Event" : "Command";
  if (name.size() > suffix.size() && name.ends_with(suffix)) name.remove_suffix(suffix.size());
  return lower(name);
}

}  // namespace whizbang
