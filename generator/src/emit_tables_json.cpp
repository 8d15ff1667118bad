// whizbang_tables.json: the receptor and message tables of whizbang_registry.cpp as data, for
// tools (`whizbang gen explain`). Same order and indices as kReceptors / kMessages; keys in a
// fixed order, written by llvm::json::OStream with a two-space indent, so the bytes depend only
// on the model and every string is escaped by one well-tested writer.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "emit.hpp"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace whizgen {
namespace {

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

void optional_attribute(llvm::json::OStream& json, llvm::StringRef key,
                        const std::optional<std::string>& value) {
  if (value) {
    json.attribute(key, *value);
  } else {
    json.attribute(key, nullptr);
  }
}

void source_attribute(llvm::json::OStream& json, const Location& location) {
  json.attributeObject("source", [&] {
    json.attribute("file", location.file);
    json.attribute("line", static_cast<std::int64_t>(location.line));
  });
}

void string_array(llvm::json::OStream& json, llvm::StringRef key,
                  const std::vector<std::string>& values) {
  json.attributeArray(key, [&] {
    for (const std::string& value : values) json.value(value);
  });
}

void write_message(llvm::json::OStream& json, const MessageModel& message, std::size_t index) {
  json.object([&] {
    json.attribute("index", static_cast<std::int64_t>(index));
    json.attribute("name", message.cpp_name);
    json.attribute("wire_name", message.wire_name);
    if (!message.dotnet_type.empty()) json.attribute("dotnet_type", message.dotnet_type);
    json.attribute("kind", message.kind == MessageKind::Event ? "event" : "command");
    optional_attribute(json, "default_routing", message.default_routing);
    json.attribute("first_receptor", static_cast<std::int64_t>(message.first_receptor));
    json.attribute("receptor_count", static_cast<std::int64_t>(message.receptor_count));
    optional_attribute(json, "receptor_default_routing", message.receptor_default_routing);
    json.attributeArray("fields", [&] {
      for (const Field& field : message.fields) {
        json.object([&] {
          json.attribute("name", field.name);
          json.attribute("type", field.type);
          if (message.dotnet_type.empty()) return;
          json.attribute("dotnet_name", field.dotnet_name);
          if (!field.dotnet_type.empty()) json.attribute("dotnet_type", field.dotnet_type);
        });
      }
    });
    source_attribute(json, message.location);
  });
}

void write_receptor(llvm::json::OStream& json, const ReceptorModel& receptor, std::size_t index) {
  json.object([&] {
    json.attribute("index", static_cast<std::int64_t>(index));
    json.attribute("id", receptor.id);
    json.attribute("message", receptor.message);
    string_array(json, "stages", receptor.stages);
    json.attribute("default_stages", receptor.default_stages);
    json.attribute("idempotent", receptor.idempotent);
    json.attribute("always_fire", receptor.always_fire);
    json.attribute("once_across_services", receptor.once_across_services);
    optional_attribute(json, "default_routing", receptor.default_routing);
    json.attribute("response_type", receptor.response_type);
    json.attributeArray("dependencies", [&] {
      for (const Dependency& dependency : receptor.dependencies) {
        json.object([&] {
          json.attribute("type", dependency.type);
          json.attribute("kind", dependency_kind(dependency.kind));
        });
      }
    });
    source_attribute(json, receptor.location);
  });
}

}  // namespace

std::string emit_tables_json(const Model& model) {
  std::string out;
  llvm::raw_string_ostream stream(out);
  llvm::json::OStream json(stream, /*IndentSize=*/2);
  json.object([&] {
    // The banner as a key: JSON has no comments.
    const std::string from = banner(model);
    json.attribute("_comment", from.substr(3, from.size() - 4));  // without "// " and newline
    json.attribute("format", 1);
    json.attribute("registry_abi", static_cast<std::int64_t>(kRegistryAbiVersion));
    json.attribute("target", model.target);
    json.attribute("namespace", "whizbang::generated::" + model.namespace_name);
    string_array(json, "headers", model.headers);
    json.attributeArray("messages", [&] {
      for (std::size_t i = 0; i < model.messages.size(); ++i) {
        write_message(json, model.messages[i], i);
      }
    });
    json.attributeArray("receptors", [&] {
      for (std::size_t i = 0; i < model.receptors.size(); ++i) {
        write_receptor(json, model.receptors[i], i);
      }
    });
  });
  stream.flush();
  return out + "\n";
}

}  // namespace whizgen
