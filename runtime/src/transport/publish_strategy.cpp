#include "whizbang/transport/publish_strategy.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace whizbang {
namespace {

// Splits on "::" and '.', keeping '+' (nested types) inside a segment.
std::vector<std::string_view> segments(std::string_view name) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i < name.size();) {
    std::size_t width = 0;
    if (name[i] == '.') width = 1;
    if (name.compare(i, 2, "::") == 0) width = 2;
    if (width == 0) {
      ++i;
      continue;
    }
    if (i > start) parts.push_back(name.substr(start, i - start));
    i += width;
    start = i;
  }
  if (start < name.size()) parts.push_back(name.substr(start));
  return parts;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

}  // namespace

WireKind detect_wire_kind(std::string_view message_type) {
  const std::vector<std::string_view> parts = segments(message_type);
  if (parts.empty()) return WireKind::Unknown;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (iequals(parts[i], "commands")) return WireKind::Command;
    if (iequals(parts[i], "events")) return WireKind::Event;
    if (iequals(parts[i], "queries")) return WireKind::Query;
  }
  const std::string_view name = parts.back();
  if (ends_with(name, "Command")) return WireKind::Command;
  if (ends_with(name, "Query")) return WireKind::Query;
  for (std::string_view suffix : {"Event", "Created", "Updated", "Deleted"}) {
    if (ends_with(name, suffix)) return WireKind::Event;
  }
  return WireKind::Unknown;
}

std::string routing_key_for(std::string_view message_type) {
  std::string key;
  for (std::string_view part : segments(message_type)) {
    if (!key.empty()) key += '.';
    key.append(part);
  }
  std::transform(key.begin(), key.end(), key.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return key;
}

std::optional<TransportDestination> publish_destination(const WorkItem& item,
                                                        std::string_view shared_inbox_topic) {
  if (!item.destination || item.destination->empty()) return std::nullopt;
  TransportDestination destination;
  // A row that is not an event is a command (our rows know their kind); names that say
  // "Command" are commands too, as in the reference.
  const bool command = !item.is_event || detect_wire_kind(item.message_type) == WireKind::Command;
  destination.address = command ? std::string(shared_inbox_topic) : *item.destination;
  destination.routing_key = routing_key_for(item.message_type);
  if (item.stream_id) destination.metadata["StreamId"] = item.stream_id->to_string();
  return destination;
}

}  // namespace whizbang
