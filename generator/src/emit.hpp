// Emitters: Model -> generated C++ text (unformatted; output.cpp formats it).
//
// Per target the generator writes three files with fixed names:
//   whizbang_messages.hpp  JsonCodec + MessageTraits specializations (inline, depend only on the
//                          message type, so several targets may emit the same ones)
//   whizbang_registry.hpp  declares whizbang::generated::<target>::registry()
//   whizbang_registry.cpp  receptor rows, construction/invoke thunks, cascade walks, dispatch
//   switch
//   whizbang_tables.json   the receptor and message tables as data, for tools (not compiled)
#pragma once

#include <string>
#include <vector>

#include "model.hpp"
#include "printer.hpp"

namespace whizgen {

inline constexpr int kRegistryAbiVersion = 4;
inline constexpr const char* kMessagesHeader = "whizbang_messages.hpp";
inline constexpr const char* kRegistryHeader = "whizbang_registry.hpp";
inline constexpr const char* kRegistrySource = "whizbang_registry.cpp";
inline constexpr const char* kTablesJson = "whizbang_tables.json";

std::string emit_messages_header(const Model& model);
std::string emit_registry_header(const Model& model);
std::string emit_registry_source(const Model& model);
// Not C++: written as is, never through format_cpp.
std::string emit_tables_json(const Model& model);

// `void cascade_<index>(const auto& value, CascadeSink& sink)` for one receptor's result.
void emit_cascade(const ReceptorModel& receptor, std::size_t index, Printer& printer);

// `absl::StatusOr<std::shared_ptr<void>> <function>(const ServiceRegistry&)`: builds `class_id`
// from its constructor dependencies; a missing one is FailedPrecondition naming `owner`
// ("receptor <class>" or "perspective <class>") and the type. Receptors and perspectives alike.
void emit_create(const std::string& function, const std::string& class_id, const std::string& owner,
                 const std::vector<Dependency>& dependencies, Printer& printer);

// Perspective thunks (create, model codec, apply) and the kPerspectives table; and the
// per-message-type arrays of perspective pointers (kMessagePerspectives<m>) MessageEntry uses.
void emit_perspectives(const Model& model, Printer& printer);
// True when some perspective applies `message` (a qualified message name).
bool has_perspectives(const Model& model, const std::string& message);

// Shared helpers.
std::string banner(const Model& model);
std::string cpp_string(const std::string& text);  // a C++ string literal
// `type` spelled for use inside the generated namespace: class types get a leading "::" so a
// user's name can never be captured by a whizbang name; fundamental types stay as they are.
std::string global_type(const std::string& type);
std::string source_comment(const Location& location);
std::string abi_guard();

}  // namespace whizgen
