// whizbang_tables.json: the receptor and message tables of whizbang_registry.cpp as data, for
// tools (`whizbang gen explain`). Same order and indices as kReceptors / kMessages; keys in a
// fixed order, two-space indent, so the bytes depend only on the model.
#include <cstdio>

#include "emit.hpp"

namespace whizgen {
namespace {

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
          out += escaped;
        } else {
          out.push_back(c);
        }
    }
  }
  return out + "\"";
}

std::string json_optional(const std::optional<std::string>& text) {
  return text ? json_string(*text) : std::string("null");
}

std::string json_bool(bool value) { return value ? "true" : "false"; }

std::string json_source(const Location& location) {
  return "{\"file\": " + json_string(location.file) +
         ", \"line\": " + std::to_string(location.line) + "}";
}

template <class Item, class Format>
std::string json_array(const std::vector<Item>& items, Format format) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += format(items[i]);
  }
  return out + "]";
}

const char* dependency_kind(Dependency::Kind kind) {
  switch (kind) {
    case Dependency::Kind::Reference:
      return "reference";
    case Dependency::Kind::Pointer:
      return "pointer";
    case Dependency::Kind::Value:
      return "value";
  }
  return "reference";
}

}  // namespace

std::string emit_tables_json(const Model& model) {
  std::string out = "{\n";
  // The banner as a key: JSON has no comments.
  std::string from = banner(model);
  from = from.substr(3, from.size() - 4);  // drop "// " and the newline
  out += "  \"_comment\": " + json_string(from) + ",\n";
  out += "  \"format\": 1,\n";
  out += "  \"registry_abi\": " + std::to_string(kRegistryAbiVersion) + ",\n";
  out += "  \"target\": " + json_string(model.target) + ",\n";
  out += "  \"namespace\": " + json_string("whizbang::generated::" + model.namespace_name) + ",\n";
  out += "  \"headers\": " + json_array(model.headers, json_string) + ",\n";

  out += "  \"messages\": [";
  std::size_t receptor = 0;
  for (std::size_t i = 0; i < model.messages.size(); ++i) {
    const MessageModel& message = model.messages[i];
    const std::size_t first = receptor;
    std::optional<std::string> receptor_routing;
    while (receptor < model.receptors.size() &&
           model.receptors[receptor].message == message.cpp_name) {
      if (!receptor_routing) receptor_routing = model.receptors[receptor].default_routing;
      ++receptor;
    }
    out += i > 0 ? ",\n" : "\n";
    out += "    {\"index\": " + std::to_string(i) + ", \"name\": " + json_string(message.cpp_name) +
           ", \"wire_name\": " + json_string(message.wire_name) +
           ", \"kind\": " + json_string(message.kind == MessageKind::Event ? "event" : "command") +
           ", \"default_routing\": " + json_optional(message.default_routing) +
           ", \"first_receptor\": " + std::to_string(first) +
           ", \"receptor_count\": " + std::to_string(receptor - first) +
           ", \"receptor_default_routing\": " + json_optional(receptor_routing) + ", \"fields\": " +
           json_array(message.fields,
                      [](const Field& field) {
                        return "{\"name\": " + json_string(field.name) +
                               ", \"type\": " + json_string(field.type) + "}";
                      }) +
           ", \"source\": " + json_source(message.location) + "}";
  }
  out += model.messages.empty() ? "],\n" : "\n  ],\n";

  out += "  \"receptors\": [";
  for (std::size_t i = 0; i < model.receptors.size(); ++i) {
    const ReceptorModel& r = model.receptors[i];
    out += i > 0 ? ",\n" : "\n";
    out += "    {\"index\": " + std::to_string(i) + ", \"id\": " + json_string(r.id) +
           ", \"message\": " + json_string(r.message) +
           ", \"stages\": " + json_array(r.stages, json_string) +
           ", \"default_stages\": " + json_bool(r.default_stages) +
           ", \"idempotent\": " + json_bool(r.idempotent) +
           ", \"always_fire\": " + json_bool(r.always_fire) +
           ", \"once_across_services\": " + json_bool(r.once_across_services) +
           ", \"default_routing\": " + json_optional(r.default_routing) +
           ", \"response_type\": " + json_string(r.response_type) + ", \"dependencies\": " +
           json_array(r.dependencies,
                      [](const Dependency& dependency) {
                        return "{\"type\": " + json_string(dependency.type) + ", \"kind\": \"" +
                               dependency_kind(dependency.kind) + "\"}";
                      }) +
           ", \"source\": " + json_source(r.location) + "}";
  }
  out += model.receptors.empty() ? "]\n" : "\n  ]\n";
  out += "}\n";
  return out;
}

}  // namespace whizgen
