// Attribute registration: teaches Clang the [[whizbang::...]] attributes.
//
// Each attribute is a clang::ParsedAttrInfo registered with ParsedAttrInfoRegistry::Add<> in this
// executable (no plugin .so). Both the scoped spelling (`whizbang::fire_at`) and the bare one
// (`fire_at`) are registered: Clang drops the arguments of a plugin attribute whose bare spelling
// is unknown. A bare use is rejected (WHIZ009). Each accepted use becomes an AnnotateAttr whose
// annotation is the scoped name and whose arguments are the attribute's argument expressions;
// the scanner reads and validates those.
#pragma once

#include <array>
#include <string_view>

namespace whizgen {

inline constexpr std::string_view kAnnotationPrefix = "whizbang::";

// Attribute names without the scope.
inline constexpr std::array<std::string_view, 9> kAttributeNames = {
    "fire_at",     "once_across_services", "idempotent", "default_routing", "wire_name",
    "dotnet_type", "dotnet_name",          "version",    "upcaster"};

// Forces the registrations in attributes.cpp to be linked; call once from main.
void link_attributes();

}  // namespace whizgen
