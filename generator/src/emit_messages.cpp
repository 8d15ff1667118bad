// whizbang_messages.hpp: codecs and type identity for every message type of the target.
#include <algorithm>
#include <map>

#include "emit.hpp"

namespace whizgen {
namespace {

std::string guard_macro(const std::string& cpp_name) {
  std::string macro = "WHIZBANG_GENERATED_CODEC_";
  for (char c : cpp_name) macro.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return macro;
}

void emit_codec(const std::string& cpp_name, const Location& location,
                const std::vector<Field>& fields, Printer& p) {
  const Printer::Vars type = {{"source", source_comment(location)}, {"type", cpp_name}};
  p.print(R"cc(
    // $source$
    template <>
    struct JsonCodec<::$type$> {
      static void write(internal::JsonWriter& writer, const ::$type$& value,
                        internal::JsonStyle style) {
  )cc",
          type);
  if (fields.empty()) p.print("static_cast<void>(value);\nstatic_cast<void>(style);\n");
  p.print("writer.StartObject();\n");
  for (const Field& field : fields) {
    p.print("internal::write_member(writer, style, {\"$name$\", \"$dotnet$\"}, value.$name$);\n",
            {{"name", field.name}, {"dotnet", field.dotnet_name}});
  }
  p.print(R"cc(
        writer.EndObject();
      }
      static absl::Status read(const internal::JsonValue& json, ::$type$& out,
                               const std::string& path, internal::JsonStyle style) {
        internal::MemberReader reader(json, path, style);
  )cc",
          type);
  if (fields.empty()) p.print("static_cast<void>(out);\n");
  for (const Field& field : fields) {
    p.print("reader.read({\"$name$\", \"$dotnet$\"}, out.$name$);\n",
            {{"name", field.name}, {"dotnet", field.dotnet_name}});
  }
  p.print(R"cc(
        return reader.status();
      }
    };

  )cc");
}

// MessageTraits<T>::upcast: per older version, decode its shape and apply the upcasters up to
// the current version (the steps of `message.upcasts`, one per version, oldest first).
void emit_upcast(const MessageModel& message, Printer& p) {
  const std::string style =
      message.dotnet_type.empty() ? "internal::JsonStyle::Native" : "internal::JsonStyle::DotNet";
  p.print(R"cc(
    inline absl::StatusOr<AnyMessage> MessageTraits<::$type$>::upcast(const void* payload,
                                                                      std::uint32_t version) {
      switch (version) {
  )cc",
          {{"type", message.cpp_name}});
  std::string known;
  for (std::size_t i = 0; i < message.upcasts.size(); ++i) {
    const UpcastStep& first = message.upcasts[i];
    known += std::to_string(first.version) + ", ";
    std::string chain = "shape";
    for (std::size_t j = i; j < message.upcasts.size(); ++j) {
      chain = "::" + message.upcasts[j].upcaster + "(" + chain + ")";
    }
    p.print(R"cc(
      case $version$:  // $shape$, upcast by $upcaster$ ($source$)
        return internal::upcast_payload<::$shape$, $style$>(
            kInfo, version, payload, [](const ::$shape$& shape) { return $chain$; });
    )cc",
            {{"version", std::to_string(first.version)},
             {"shape", first.shape},
             {"upcaster", first.upcaster},
             {"source", source_comment(first.location)},
             {"style", style},
             {"chain", chain}});
  }
  known += std::to_string(message.version);
  p.print(R"cc(
    default:
      return internal::unknown_payload_version(kInfo, version, $known$);
    }
    }
  )cc",
          {{"known", cpp_string(known)}});
}

void emit_traits(const MessageModel& message, Printer& p) {
  const bool versioned = message.version > 1;
  std::string extra;  // the trailing arguments: .NET type, then version and upcast function
  if (!message.dotnet_type.empty() || versioned) extra += ", " + cpp_string(message.dotnet_type);
  if (versioned) extra += ", " + std::to_string(message.version) + ", &upcast";
  p.print(R"cc(
    // $source$
    template <>
    struct MessageTraits<::$type$> {
  )cc",
          {{"source", source_comment(message.location)}, {"type", message.cpp_name}});
  if (versioned) {
    p.print(R"cc(
      // A payload of an older version, decoded as its shape and upcast to version $version$.
      static absl::StatusOr<AnyMessage> upcast(const void* payload, std::uint32_t version);
    )cc",
            {{"version", std::to_string(message.version)}});
  }
  p.print(R"cc(
      static constexpr MessageTypeInfo kInfo = internal::make_message_type_info<::$type$>(
          $wire$, $cpp$, MessageKind::$kind$, $routing$, SourceLocation{$file$, $line$}$extra$);
      static const MessageTypeInfo& info() { return kInfo; }
    };
  )cc",
          {{"type", message.cpp_name},
           {"wire", cpp_string(message.wire_name)},
           {"cpp", cpp_string(message.cpp_name)},
           {"kind", message.kind == MessageKind::Event ? "Event" : "Command"},
           {"routing", message.default_routing ? "DispatchModes::" + *message.default_routing
                                               : std::string("std::nullopt")},
           {"file", cpp_string(message.location.file)},
           {"line", std::to_string(message.location.line)},
           {"extra", extra}});
  if (versioned) emit_upcast(message, p);
}

}  // namespace

std::string emit_messages_header(const Model& model) {
  Printer p;
  p.print(banner(model));
  p.print(R"cc(
    // Message types seen by target '$target$': JSON codecs and MessageTraits (type identity
    // without RTTI). Each specialization is guarded so headers of several targets can meet
    // in one TU.
#pragma once

#include <whizbang/message/json_codec.hpp>
#include <whizbang/registry/registry.hpp>
  )cc",
          {{"target", model.target}});
  const bool versioned = std::any_of(model.messages.begin(), model.messages.end(),
                                     [](const MessageModel& m) { return m.version > 1; });
  if (versioned) p.print("#include <whizbang/message/json_upcast.hpp>\n");
  for (const std::string& include : model.header_includes) {
    p.print("#include \"$include$\"\n", {{"include", include}});
  }
  p.print("\n");
  p.print("$guard$\n\nnamespace whizbang {\n\n", {{"guard", abi_guard()}});

  std::map<std::string, const MessageModel*> messages;
  for (const MessageModel& message : model.messages) messages[message.cpp_name] = &message;
  std::map<std::string, const StructModel*> structs;
  for (const StructModel& s : model.structs) structs[s.cpp_name] = &s;

  for (const std::string& name : model.codec_order) {
    p.print("#ifndef $macro$\n#define $macro$\n", {{"macro", guard_macro(name)}});
    if (auto it = messages.find(name); it != messages.end()) {
      emit_codec(name, it->second->location, it->second->fields, p);
      emit_traits(*it->second, p);
    } else {
      const StructModel& s = *structs.at(name);
      emit_codec(name, s.location, s.fields, p);
    }
    p.print("#endif  // $macro$\n\n", {{"macro", guard_macro(name)}});
  }
  p.print("}  // namespace whizbang\n");
  return p.str();
}

}  // namespace whizgen
