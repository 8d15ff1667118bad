#include "dotnet_member_types.hpp"

#include <cstdint>

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Type.h"
#include "type_shapes.hpp"

namespace whizgen {
namespace {

// The type arguments of a specialization (none of std::ratio's: they are integers).
const clang::TemplateArgumentList* arguments_of(const clang::CXXRecordDecl* record) {
  const auto* spec = llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(record);
  return spec == nullptr ? nullptr : &spec->getTemplateArgs();
}

clang::QualType type_argument(const clang::TemplateArgumentList* args, unsigned index) {
  if (args == nullptr || args->size() <= index) return {};
  const clang::TemplateArgument& arg = args->get(index);
  return arg.getKind() == clang::TemplateArgument::Type ? arg.getAsType() : clang::QualType();
}

bool is_integer_argument(const clang::TemplateArgumentList* args, unsigned index,
                         std::int64_t value) {
  if (args == nullptr || args->size() <= index) return false;
  const clang::TemplateArgument& arg = args->get(index);
  return arg.getKind() == clang::TemplateArgument::Integral &&
         arg.getAsIntegral().getExtValue() == value;
}

// std::chrono::duration<int64_t, std::ratio<1, 10000000>>: .NET's 100 ns tick.
bool is_tick_duration(const clang::CXXRecordDecl* record, const clang::ASTContext& context) {
  if (template_or_class_name(record) != "std::chrono::duration") return false;
  const clang::TemplateArgumentList* args = arguments_of(record);
  const clang::QualType rep = type_argument(args, 0);
  const clang::CXXRecordDecl* period = record_of(type_argument(args, 1));
  if (rep.isNull() || period == nullptr || template_or_class_name(period) != "std::ratio") {
    return false;
  }
  const clang::QualType canonical_rep = rep.getCanonicalType();
  const clang::TemplateArgumentList* ratio = arguments_of(period);
  return canonical_rep->isBuiltinType() && canonical_rep->isSignedIntegerType() &&
         !canonical_rep->isAnyCharacterType() && context.getTypeSize(canonical_rep) == 64 &&
         is_integer_argument(ratio, 0, 1) && is_integer_argument(ratio, 1, 10'000'000);
}

std::string integer_type(clang::QualType type, const clang::ASTContext& context) {
  const bool is_signed = type->isSignedIntegerType();
  switch (context.getTypeSize(type)) {
    case 16:
      return is_signed ? "System.Int16" : "System.UInt16";
    case 32:
      return is_signed ? "System.Int32" : "System.UInt32";
    case 64:
      return is_signed ? "System.Int64" : "System.UInt64";
    default:
      return "";
  }
}

}  // namespace

std::string dotnet_time_type(clang::QualType type, const clang::ASTContext& context) {
  const clang::CXXRecordDecl* record = record_of(type);
  if (record == nullptr) return "";
  const std::string name = template_or_class_name(record);
  if (name == "whizbang::DateTime") return "System.DateTime";
  if (name == "whizbang::DateOnly") return "System.DateOnly";
  if (name == "whizbang::TimeOnly") return "System.TimeOnly";
  if (is_tick_duration(record, context)) return "System.TimeSpan";
  return "";
}

std::string dotnet_member_type(clang::QualType type, const clang::ASTContext& context) {
  const clang::QualType canonical = type.getCanonicalType();
  if (const auto* builtin = canonical->getAs<clang::BuiltinType>()) {
    if (builtin->getKind() == clang::BuiltinType::Bool) return "System.Boolean";
    if (builtin->getKind() == clang::BuiltinType::Float) return "System.Single";
    if (builtin->getKind() == clang::BuiltinType::Double) return "System.Double";
    return builtin->isInteger() ? integer_type(canonical, context) : "";
  }
  const clang::CXXRecordDecl* record = record_of(canonical);
  if (record == nullptr) return "";
  if (std::string time = dotnet_time_type(canonical, context); !time.empty()) return time;
  const std::string name = template_or_class_name(record);
  if (name == "whizbang::Uuid" || name == "whizbang::MessageId") return "System.Guid";
  if (name == "std::basic_string") return "System.String";
  if (name == "std::chrono::time_point") return "System.DateTimeOffset";
  const clang::TemplateArgumentList* args = arguments_of(record);
  const std::string first = type_argument(args, 0).isNull()
                                ? std::string()
                                : dotnet_member_type(type_argument(args, 0), context);
  if (first.empty()) return "";
  if (name == "std::optional") return first + "?";
  // Built by appending: g++ 12 warns falsely (-Wrestrict) at -O3 on "literal" + std::string.
  std::string generic = "System.Collections.Generic.";
  if (name == "std::vector") return generic.append("List<").append(first).append(">");
  const std::string value = name == "std::map" && !type_argument(args, 1).isNull()
                                ? dotnet_member_type(type_argument(args, 1), context)
                                : std::string();
  if (value.empty()) return "";
  return generic.append("Dictionary<").append(first).append(", ").append(value).append(">");
}

}  // namespace whizgen
