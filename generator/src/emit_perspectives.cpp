// whizbang_registry.cpp, perspective part: per perspective its event list, constructor wiring and
// apply thunk (a chain of AnyMessage::get_if, no RTTI), then the kPerspectives table and, per
// message type with perspectives, the kMessagePerspectives<m> pointer array MessageEntry uses.
#include <algorithm>

#include "emit.hpp"

namespace whizgen {
namespace {

void emit_apply(const PerspectiveModel& perspective, std::size_t i, Printer& p) {
  p.print(R"cc(
    absl::Status apply_perspective_$i$(void* perspective, void* model,
                                       const ::whizbang::AnyMessage& event) {
      auto& typed = *static_cast<::$type$*>(perspective);
      auto& state = *static_cast<::$model$*>(model);
  )cc",
          {{"i", std::to_string(i)}, {"type", perspective.id}, {"model", perspective.model}});
  for (const std::string& event : perspective.events) {
    p.print(R"cc(
      if (const auto* typed_event = event.get_if<::$event$>()) {
        return ::whizbang::internal::call_apply([&] { return typed.apply(state, *typed_event); });
      }
    )cc",
            {{"event", event}});
  }
  p.print(R"cc(
    return absl::InvalidArgumentError(std::string($prefix$) +
                                      (event.info() ? std::string(event.info()->wire_name)
                                                    : std::string("an empty message")));
  )cc",
          {{"prefix", cpp_string("perspective " + perspective.id + " cannot apply ")}});
  p.print("}\n\n");
}

void emit_row(const PerspectiveModel& perspective, std::size_t i, Printer& p) {
  p.print(R"cc(
    // $source$
    ::whizbang::PerspectiveInfo{
        .name = $name$,
        .model_type = $model_name$,
        .events = kPerspectiveEvents$i$,
        .source = ::whizbang::SourceLocation{$file$, $line$},
        .index = $i$,
        .create = &create_perspective_$i$,
        .new_model = &::whizbang::internal::new_value<::$model$>,
        .model_to_json = &::whizbang::internal::message_to_json<::$model$>,
        .model_from_json = &::whizbang::internal::value_from_json<::$model$>,
        .apply = &apply_perspective_$i$,
        .version = $version$,
    },
  )cc",
          {{"source", source_comment(perspective.location)},
           {"name", cpp_string(perspective.id)},
           {"model_name", cpp_string(perspective.model)},
           {"model", perspective.model},
           {"i", std::to_string(i)},
           {"file", cpp_string(perspective.location.file)},
           {"line", std::to_string(perspective.location.line)},
           {"version", std::to_string(perspective.version)}});
}

}  // namespace

void emit_perspectives(const Model& model, Printer& p) {
  if (model.perspectives.empty()) return;
  for (std::size_t i = 0; i < model.perspectives.size(); ++i) {
    const PerspectiveModel& perspective = model.perspectives[i];
    p.print("\n");  // a blank line between blocks (a template's own leading newline is dropped)
    p.print("// ---- perspective $id$ ($source$)\n\n",
            {{"id", perspective.id}, {"source", source_comment(perspective.location)}});
    std::string events;
    for (const std::string& event : perspective.events) {
      if (!events.empty()) events += ", ";
      events += "&::whizbang::MessageTraits<::" + event + ">::kInfo";
    }
    p.print(
        "constexpr std::array<const ::whizbang::MessageTypeInfo*, $n$> kPerspectiveEvents$i$ = "
        "{$events$};\n\n",
        {{"n", std::to_string(perspective.events.size())},
         {"i", std::to_string(i)},
         {"events", events}});
    emit_create("create_perspective_" + std::to_string(i), perspective.id,
                "perspective " + perspective.id, perspective.dependencies, p);
    emit_apply(perspective, i, p);
  }

  p.print("constexpr std::array<::whizbang::PerspectiveInfo, $n$> kPerspectives = {{\n",
          {{"n", std::to_string(model.perspectives.size())}});
  for (std::size_t i = 0; i < model.perspectives.size(); ++i) {
    emit_row(model.perspectives[i], i, p);
  }
  p.print("}};\n\n");

  for (std::size_t m = 0; m < model.messages.size(); ++m) {
    std::string pointers;
    std::size_t count = 0;
    for (std::size_t i = 0; i < model.perspectives.size(); ++i) {
      const std::vector<std::string>& events = model.perspectives[i].events;
      if (std::find(events.begin(), events.end(), model.messages[m].cpp_name) == events.end()) {
        continue;
      }
      if (!pointers.empty()) pointers += ", ";
      pointers += "&kPerspectives[" + std::to_string(i) + "]";
      ++count;
    }
    if (count == 0) continue;
    p.print(
        "// $message$\n"
        "constexpr std::array<const ::whizbang::PerspectiveInfo*, $n$> kMessagePerspectives$m$ = "
        "{$pointers$};\n\n",
        {{"message", model.messages[m].cpp_name},
         {"n", std::to_string(count)},
         {"m", std::to_string(m)},
         {"pointers", pointers}});
  }
}

bool has_perspectives(const Model& model, const std::string& message) {
  for (const PerspectiveModel& perspective : model.perspectives) {
    for (const std::string& event : perspective.events) {
      if (event == message) return true;
    }
  }
  return false;
}

}  // namespace whizgen
