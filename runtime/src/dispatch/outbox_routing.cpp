#include "whizbang/outbox_routing.hpp"

#include <algorithm>
#include <cctype>

namespace whizbang {
namespace {

std::string_view simple_name(std::string_view wire_name) {
  for (std::string_view separator : {"::", "."}) {
    if (const auto pos = wire_name.rfind(separator); pos != std::string_view::npos) {
      wire_name = wire_name.substr(pos + separator.size());
    }
  }
  return wire_name;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
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
