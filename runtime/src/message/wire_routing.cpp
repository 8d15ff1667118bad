#include "whizbang/message/wire_routing.hpp"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "whizbang/internal/absl_view.hpp"

namespace whizbang {

using internal::absl_view;

std::vector<std::string_view> wire_name_segments(std::string_view wire_name) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i < wire_name.size();) {
    std::size_t width = 0;
    if (wire_name[i] == '.') width = 1;
    if (wire_name.compare(i, 2, "::") == 0) width = 2;
    if (width == 0) {
      ++i;
      continue;
    }
    if (i > start) parts.push_back(wire_name.substr(start, i - start));
    i += width;
    start = i;
  }
  if (start < wire_name.size()) parts.push_back(wire_name.substr(start));
  return parts;
}

std::string_view wire_simple_name(std::string_view wire_name) {
  // One backward scan: this runs per outbox row.
  for (std::size_t i = wire_name.size(); i > 0; --i) {
    const char c = wire_name[i - 1];
    if (c == '.' || (c == ':' && i >= 2 && wire_name[i - 2] == ':')) return wire_name.substr(i);
  }
  return wire_name;
}

std::string_view wire_namespace(std::string_view wire_name) {
  const std::string_view name = wire_simple_name(wire_name);
  if (name.size() == wire_name.size()) return {};
  std::string_view prefix = wire_name.substr(0, wire_name.size() - name.size());
  prefix.remove_suffix(prefix.ends_with("::") ? 2 : 1);
  return prefix;
}

bool namespace_within(std::string_view ns, std::string_view domain) {
  if (absl::EqualsIgnoreCase(absl_view(ns), absl_view(domain))) return true;
  for (std::string_view separator : {"::", "."}) {
    if (ns.size() > domain.size() + separator.size() &&
        absl::EqualsIgnoreCase(absl_view(ns.substr(0, domain.size())), absl_view(domain)) &&
        ns.substr(domain.size(), separator.size()) == separator) {
      return true;
    }
  }
  return false;
}

WireKind detect_wire_kind(std::string_view message_type) {
  const std::vector<std::string_view> parts = wire_name_segments(message_type);
  if (parts.empty()) return WireKind::Unknown;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (absl::EqualsIgnoreCase(absl_view(parts[i]), "commands")) return WireKind::Command;
    if (absl::EqualsIgnoreCase(absl_view(parts[i]), "events")) return WireKind::Event;
    if (absl::EqualsIgnoreCase(absl_view(parts[i]), "queries")) return WireKind::Query;
  }
  const std::string_view name = parts.back();
  if (name.ends_with("Command")) return WireKind::Command;
  if (name.ends_with("Query")) return WireKind::Query;
  for (std::string_view suffix : {"Event", "Created", "Updated", "Deleted"}) {
    if (name.ends_with(suffix)) return WireKind::Event;
  }
  return WireKind::Unknown;
}

std::string routing_key_for(std::string_view message_type) {
  std::string key;
  for (std::string_view part : wire_name_segments(message_type)) {
    if (!key.empty()) key += '.';
    key.append(part);
  }
  absl::AsciiStrToLower(&key);
  return key;
}

}  // namespace whizbang
