// whizbang_registry.hpp / .cpp: the target's Registry (receptor rows, thunks, dispatch switch).
#include <algorithm>
#include <cctype>
#include <map>

#include "emit.hpp"

namespace whizgen {
namespace {

// "::whizbang::Stage::A, ::whizbang::Stage::B" for an array initializer.
std::string stage_list(const std::vector<std::string>& stages) {
  std::string list;
  for (const std::string& stage : stages) {
    if (!list.empty()) list += ", ";
    list += "::whizbang::Stage::" + stage;
  }
  return list;
}

std::string optional_mode(const std::optional<std::string>& mode) {
  return mode ? "::whizbang::DispatchModes::" + *mode : std::string("std::nullopt");
}

void emit_invoke(const ReceptorModel& r, std::size_t i, Printer& p) {
  const Printer::Vars vars = {
      {"i", std::to_string(i)}, {"type", r.id}, {"message", r.message}, {"id", cpp_string(r.id)}};
  p.print(R"cc(
    absl::Status invoke_$i$(void* receptor, const ::whizbang::AnyMessage& message,
                            [[maybe_unused]] ::whizbang::CascadeSink& sink,
                            std::shared_ptr<void>* response) {
      const auto* typed = message.get_if<::$message$>();
      if (typed == nullptr) return wrong_message($id$, message);
  )cc",
          vars);
  if (r.result) {
    p.print(R"cc(
      auto result = static_cast<::$type$*>(receptor)->handle(*typed);
      cascade_$i$(result, sink);
      if (response != nullptr) *response = std::make_shared<decltype(result)>(std::move(result));
      return absl::OkStatus();
      }

      const void* find_response_$i$(const void* response, ::whizbang::internal::TypeKey wanted) {
        return ::whizbang::internal::find_response(
            *static_cast<const HandleResult<::$type$, ::$message$>*>(response), wanted);
      }
    )cc",
            vars);
  } else {
    p.print(R"cc(
      static_cast<::$type$*>(receptor)->handle(*typed);
      if (response != nullptr) response->reset();
      return absl::OkStatus();
      }
    )cc",
            vars);
  }
}

void emit_receptor_row(const ReceptorModel& r, std::size_t i, Printer& p) {
  p.print(
      R"cc(
        // $source$
        ::whizbang::ReceptorInfo{
            .id = $id$,
            .message = &::whizbang::MessageTraits<::$message$>::kInfo,
            .stages = $stages$,
            .default_stages = $default_stages$,
            .idempotent = $idempotent$,
            .always_fire = $always_fire$,
            .once_across_services = $once$,
            .default_routing = $routing$,
            .response_type = $response_type$,
            .response_key = $response_key$,
            .source = ::whizbang::SourceLocation{$file$, $line$},
            .index = $i$,
            .create = &create_$i$,
            .invoke = &invoke_$i$,
            .find_response = $find_response$,
        },
      )cc",
      {{"source", source_comment(r.location)},
       {"id", cpp_string(r.id)},
       {"message", r.message},
       {"i", std::to_string(i)},
       {"stages", r.default_stages ? std::string("kDefaultStages") : "kStages" + std::to_string(i)},
       {"default_stages", r.default_stages ? "true" : "false"},
       {"idempotent", r.idempotent ? "true" : "false"},
       {"always_fire", r.always_fire ? "true" : "false"},
       {"once", r.once_across_services ? "true" : "false"},
       {"routing", optional_mode(r.default_routing)},
       {"response_type", cpp_string(r.response_type)},
       {"response_key", r.result ? "::whizbang::internal::type_key<HandleResult<::" + r.id +
                                       ", ::" + r.message + ">>()"
                                 : std::string("nullptr")},
       {"file", cpp_string(r.location.file)},
       {"line", std::to_string(r.location.line)},
       {"find_response",
        r.result ? "&find_response_" + std::to_string(i) : std::string("nullptr")}});
}

void emit_dispatch(const Model& model, Printer& p) {
  p.print(R"cc(
    // One case per message type with receptors: each receptor's handle is called directly, in
    // declaration order, and its result cascaded into the visitor.
    absl::Status dispatch(std::uint32_t message_index, const ::whizbang::AnyMessage& message,
                          [[maybe_unused]] const ::whizbang::ReceptorSet& receptors,
                          [[maybe_unused]] ::whizbang::DispatchVisitor& visitor) {
      switch (message_index) {
  )cc");
  for (std::size_t m = 0; m < model.messages.size(); ++m) {
    const MessageModel& message = model.messages[m];
    if (message.receptor_count == 0) continue;
    p.print(R"cc(
      case $m$: {  // $message$
        const auto& typed = *message.get_if<::$message$>();
    )cc",
            {{"m", std::to_string(m)}, {"message", message.cpp_name}});
    for (std::size_t receptor = message.first_receptor;
         receptor < message.first_receptor + message.receptor_count; ++receptor) {
      const ReceptorModel& r = model.receptors[receptor];
      const Printer::Vars vars = {{"i", std::to_string(receptor)}, {"type", r.id}};
      p.print(R"cc(
        if (visitor.before_invoke(kReceptors[$i$])) {
          auto& receptor = *static_cast<::$type$*>(receptors.get($i$));
      )cc",
              vars);
      if (r.result) {
        p.print(R"cc(
          auto result = receptor.handle(typed);
          cascade_$i$(result, visitor);
          visitor.after_invoke(kReceptors[$i$], &result);
          }
        )cc",
                vars);
      } else {
        p.print(R"cc(
          receptor.handle(typed);
          visitor.after_invoke(kReceptors[$i$], nullptr);
          }
        )cc",
                vars);
      }
    }
    p.print("return absl::OkStatus();\n");
    p.print("}\n");
  }
  p.print(R"cc(
    default:
      static_cast<void>(message);
      return absl::OkStatus();  // a message type without receptors
  )cc");
  p.print("  }\n}\n\n");
}

void emit_messages_table(const Model& model, Printer& p) {
  p.print("constexpr std::array<::whizbang::MessageEntry, $n$> kMessages = {{\n",
          {{"n", std::to_string(model.messages.size())}});
  for (std::size_t m = 0; m < model.messages.size(); ++m) {
    const MessageModel& message = model.messages[m];
    p.print(
        R"cc(
          // $source$
          ::whizbang::MessageEntry{.info = &::whizbang::MessageTraits<::$message$>::kInfo,
                                   .first_receptor = $first$,
                                   .receptor_count = $count$,
                                   .receptor_default_routing = $routing$,
                                   $perspectives$},
        )cc",
        {{"source", source_comment(message.location)},
         {"message", message.cpp_name},
         {"first", std::to_string(message.first_receptor)},
         {"count", std::to_string(message.receptor_count)},
         {"routing", optional_mode(message.receptor_default_routing)},
         {"perspectives", has_perspectives(model, message.cpp_name)
                              ? "\n.perspectives = kMessagePerspectives" + std::to_string(m) + ","
                              : std::string("\n.perspectives = {},")}});
  }
  p.print("}};\n\n");
}

}  // namespace

std::string emit_registry_header(const Model& model) {
  Printer p;
  p.print(banner(model));
  p.print(R"cc(
    // The registry of target '$target$'. See whizbang/registry/registry.hpp for how to use it.
    // Including it also brings the MessageTraits of every message type, so typed
    // dispatch (local_invoke, send, publish) works with this one include.
#pragma once

#include <whizbang/registry/registry.hpp>

#include "whizbang_messages.hpp"

    namespace whizbang::generated::$ns$ {

    const ::whizbang::Registry& registry();

    }  // namespace whizbang::generated::$ns$
  )cc",
          {{"target", model.target}, {"ns", model.namespace_name}});
  return p.str();
}

std::string emit_registry_source(const Model& model) {
  Printer p;
  p.print(banner(model));
  p.print(R"cc(
#include "whizbang_registry.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include <whizbang/registry/find_response.hpp>

#include "whizbang_messages.hpp"

    $guard$

        namespace whizbang::generated::$ns$ {
      namespace {

      template <class Receptor, class Message>
      using HandleResult =
          decltype(std::declval<Receptor&>().handle(std::declval<const Message&>()));

      // `owner`: "receptor <class>" or "perspective <class>".
      [[maybe_unused]] absl::Status missing_dependency(std::string_view owner, std::string_view type) {
        return absl::FailedPreconditionError(
            std::string(owner) + ": missing dependency " + std::string(type) +
            " (add it with ServiceRegistry::add<" + std::string(type) + ">)");
      }

      [[maybe_unused]] absl::Status wrong_message(std::string_view receptor,
                                                  const ::whizbang::AnyMessage& message) {
        return absl::InvalidArgumentError(
            std::string("receptor ") + std::string(receptor) + " cannot handle " +
            (message.info() ? std::string(message.info()->wire_name)
                            : std::string("an empty message")));
      }
  )cc",
          {{"guard", abi_guard()}, {"ns", model.namespace_name}});

  const bool any_default_stages =
      std::any_of(model.receptors.begin(), model.receptors.end(),
                  [](const ReceptorModel& r) { return r.default_stages; });
  if (any_default_stages) {
    p.print("\n");
    p.print(R"cc(
      // The stages of every receptor without [[whizbang::fire_at]].
      constexpr std::array<::whizbang::Stage, $n$> kDefaultStages = {$stages$};
    )cc",
            {{"n", std::to_string(kDefaultStageNames.size())},
             {"stages", stage_list(kDefaultStageNames)}});
  }
  for (std::size_t i = 0; i < model.receptors.size(); ++i) {
    const ReceptorModel& r = model.receptors[i];
    p.print("\n");  // a blank line between blocks (a template's own leading newline is dropped)
    p.print("// ---- $id$ ($source$)\n\n", {{"id", r.id}, {"source", source_comment(r.location)}});
    if (!r.default_stages) {
      p.print("constexpr std::array<::whizbang::Stage, $n$> kStages$i$ = {$stages$};\n\n",
              {{"n", std::to_string(r.stages.size())},
               {"i", std::to_string(i)},
               {"stages", stage_list(r.stages)}});
    }
    if (r.result) emit_cascade(r, i, p);
    emit_create("create_" + std::to_string(i), r.id, "receptor " + r.id, r.dependencies, p);
    emit_invoke(r, i, p);
  }
  p.print("\n");

  p.print("constexpr std::array<::whizbang::ReceptorInfo, $n$> kReceptors = {{\n",
          {{"n", std::to_string(model.receptors.size())}});
  for (std::size_t i = 0; i < model.receptors.size(); ++i)
    emit_receptor_row(model.receptors[i], i, p);
  p.print("}};\n\n");

  emit_dispatch(model, p);
  emit_perspectives(model, p);
  emit_messages_table(model, p);
  p.print(R"cc(
    constexpr ::whizbang::Registry kRegistry($target$, kMessages, kReceptors,
                                             &dispatch$perspectives$);

    }  // namespace

    const ::whizbang::Registry& registry() { return kRegistry; }

    }  // namespace whizbang::generated::$ns$
  )cc",
          {{"target", cpp_string(model.target)},
           {"ns", model.namespace_name},
           {"perspectives", model.perspectives.empty() ? "" : ", kPerspectives"}});
  return p.str();
}

std::string banner(const Model& model) {
  std::string from;
  for (const std::string& header : model.headers) {
    if (!from.empty()) from += ", ";
    from += header;
  }
  return "// generated by whizbang-gen " WHIZBANG_VERSION " from " + from + " DO NOT EDIT\n";
}

std::string global_type(const std::string& type) {
  static const char* const kFundamental[] = {
      "bool",  "char",   "signed",  "unsigned", "short",    "int",     "long",
      "float", "double", "wchar_t", "char8_t",  "char16_t", "char32_t"};
  for (const char* word : kFundamental) {
    const std::string_view w(word);
    const bool whole_word =
        type.size() == w.size() || !std::isalnum(static_cast<unsigned char>(type[w.size()]));
    if (type.rfind(w, 0) == 0 && whole_word) return type;
  }
  return "::" + type;
}

std::string cpp_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out + "\"";
}

std::string source_comment(const Location& location) {
  return "source: " + location.file + ":" + std::to_string(location.line);
}

std::string abi_guard() {
  return "static_assert(WHIZBANG_REGISTRY_ABI_VERSION == " + std::to_string(kRegistryAbiVersion) +
         ",\n              \"whizbang-gen emits registry ABI " +
         std::to_string(kRegistryAbiVersion) +
         " but whizbang/registry/registry.hpp has another: build the generator and the runtime "
         "from one "
         "Whizbang release\");";
}

}  // namespace whizgen
