#include "type_shapes.hpp"

#include "clang/AST/QualTypeNames.h"
#include "clang/AST/Type.h"
#include "dotnet_member_types.hpp"

namespace whizgen {
namespace {

clang::PrintingPolicy naming_policy(const clang::ASTContext& context) {
  clang::PrintingPolicy policy(context.getLangOpts());
  policy.SuppressTagKeyword = true;
  policy.SuppressUnwrittenScope = true;
  policy.FullyQualifiedName = true;
  policy.Bool = true;
  return policy;
}

bool derives_from(const clang::CXXRecordDecl* record, std::string_view base_name) {
  if (record == nullptr || !record->hasDefinition()) return false;
  for (const clang::CXXBaseSpecifier& base : record->getDefinition()->bases()) {
    const clang::CXXRecordDecl* base_record = record_of(base.getType());
    if (base_record == nullptr) continue;
    if (template_or_class_name(base_record) == base_name) return true;
    if (derives_from(base_record, base_name)) return true;
  }
  return false;
}

const clang::ClassTemplateSpecializationDecl* as_specialization(const clang::CXXRecordDecl* r) {
  return llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(r);
}

// Type arguments of a specialization, with packs (std::tuple<Ts...>) expanded.
std::vector<clang::QualType> type_arguments(const clang::ClassTemplateSpecializationDecl* spec) {
  std::vector<clang::QualType> out;
  for (const clang::TemplateArgument& arg : spec->getTemplateArgs().asArray()) {
    if (arg.getKind() == clang::TemplateArgument::Type) {
      out.push_back(arg.getAsType());
    } else if (arg.getKind() == clang::TemplateArgument::Pack) {
      for (const clang::TemplateArgument& element : arg.pack_elements()) {
        if (element.getKind() == clang::TemplateArgument::Type) out.push_back(element.getAsType());
      }
    }
  }
  return out;
}

bool is_std_string(clang::QualType type) {
  const clang::CXXRecordDecl* record = record_of(type);
  if (record == nullptr || template_or_class_name(record) != "std::basic_string") return false;
  const std::vector<clang::QualType> args = type_arguments(as_specialization(record));
  return !args.empty() && args[0]->isSpecificBuiltinType(clang::BuiltinType::Char_S);
}

bool contains_message(clang::QualType type, int depth = 0) {
  if (depth > 32) return false;
  type = type.getCanonicalType();
  if (type->isPointerType() || type->isReferenceType()) {
    return contains_message(type->getPointeeType(), depth + 1);
  }
  if (const clang::ArrayType* array = type->getAsArrayTypeUnsafe()) {
    return contains_message(array->getElementType(), depth + 1);
  }
  const clang::CXXRecordDecl* record = record_of(type);
  if (record == nullptr) return false;
  if (message_kind_of(record)) return true;
  if (const auto* spec = as_specialization(record)) {
    for (clang::QualType arg : type_arguments(spec)) {
      if (contains_message(arg, depth + 1)) return true;
    }
  }
  return false;
}

}  // namespace

std::string type_name(clang::QualType type, const clang::ASTContext& context) {
  // Sugar keeps "std::string" readable; a canonical spelling is used when the sugar hides
  // qualification (template arguments written unqualified inside a namespace).
  const std::string sugared = clang::TypeName::getFullyQualifiedName(
      type, context, naming_policy(context), /*WithGlobalNsPrefix=*/false);
  const clang::QualType canonical = type.getCanonicalType();
  if (canonical->getAs<clang::RecordType>() == nullptr ||
      !llvm::isa<clang::ClassTemplateSpecializationDecl>(canonical->getAsCXXRecordDecl())) {
    return sugared;
  }
  return canonical.getAsString(naming_policy(context));
}

std::string template_or_class_name(const clang::CXXRecordDecl* record) {
  if (const auto* spec = as_specialization(record)) {
    return spec->getSpecializedTemplate()->getQualifiedNameAsString();
  }
  return record->getQualifiedNameAsString();
}

const clang::CXXRecordDecl* record_of(clang::QualType type) {
  return type.isNull() ? nullptr : type.getCanonicalType()->getAsCXXRecordDecl();
}

std::optional<MessageKind> message_kind_of(const clang::CXXRecordDecl* record) {
  if (derives_from(record, "whizbang::Event")) return MessageKind::Event;
  if (derives_from(record, "whizbang::Command")) return MessageKind::Command;
  return std::nullopt;
}

const clang::ClassTemplateSpecializationDecl* receptor_base_of(const clang::CXXRecordDecl* record) {
  if (record == nullptr || !record->hasDefinition()) return nullptr;
  for (const clang::CXXBaseSpecifier& base : record->getDefinition()->bases()) {
    const clang::CXXRecordDecl* base_record = record_of(base.getType());
    if (base_record == nullptr) continue;
    if (template_or_class_name(base_record) == "whizbang::Receptor") {
      return as_specialization(base_record);
    }
    if (const auto* found = receptor_base_of(base_record)) return found;
  }
  return nullptr;
}

const clang::ClassTemplateSpecializationDecl* perspective_base_of(
    const clang::CXXRecordDecl* record) {
  if (record == nullptr || !record->hasDefinition()) return nullptr;
  for (const clang::CXXBaseSpecifier& base : record->getDefinition()->bases()) {
    const clang::CXXRecordDecl* base_record = record_of(base.getType());
    if (base_record == nullptr) continue;
    if (template_or_class_name(base_record) == "whizbang::Perspective") {
      return as_specialization(base_record);
    }
    if (const auto* found = perspective_base_of(base_record)) return found;
  }
  return nullptr;
}

std::optional<std::string> check_field_type(clang::QualType type, const clang::ASTContext& context,
                                            std::vector<const clang::CXXRecordDecl*>& nested) {
  const clang::QualType canonical = type.getCanonicalType();
  if (canonical.isConstQualified())
    return type_name(type, context) + " (const members cannot be decoded)";
  if (const auto* builtin = canonical->getAs<clang::BuiltinType>()) {
    if (builtin->getKind() == clang::BuiltinType::Bool) return std::nullopt;
    if (canonical->isAnyCharacterType() || builtin->getKind() == clang::BuiltinType::SChar ||
        builtin->getKind() == clang::BuiltinType::UChar) {
      return type_name(type, context);
    }
    if (builtin->isInteger()) return std::nullopt;
    if (builtin->getKind() == clang::BuiltinType::Float ||
        builtin->getKind() == clang::BuiltinType::Double) {
      return std::nullopt;
    }
    return type_name(type, context);
  }
  if (canonical->isEnumeralType()) return std::nullopt;
  const clang::CXXRecordDecl* record = record_of(canonical);
  if (record == nullptr) return type_name(type, context);
  const std::string name = template_or_class_name(record);
  if (name == "whizbang::Uuid" || name == "whizbang::MessageId") return std::nullopt;
  // .NET's DateTime, DateOnly, TimeOnly and TimeSpan: a codec of their own, not a struct's.
  if (!dotnet_time_type(canonical, context).empty()) return std::nullopt;
  if (const auto* spec = as_specialization(record)) {
    const std::vector<clang::QualType> args = type_arguments(spec);
    if (name == "std::basic_string") {
      return is_std_string(canonical) ? std::nullopt : std::optional(type_name(type, context));
    }
    if ((name == "std::optional" || name == "std::vector") && !args.empty()) {
      return check_field_type(args[0], context, nested);
    }
    if (name == "std::map" && args.size() >= 2) {
      if (!is_std_string(args[0]))
        return type_name(type, context) + " (map keys must be std::string)";
      return check_field_type(args[1], context, nested);
    }
    if (name == "std::chrono::time_point" && !args.empty()) {
      const clang::CXXRecordDecl* clock = record_of(args[0]);
      if (clock != nullptr && clock->getQualifiedNameAsString() == "std::chrono::system_clock") {
        return std::nullopt;
      }
    }
    return type_name(type, context);
  }
  if (name.rfind("std::", 0) == 0 || record->isUnion() || !record->hasDefinition() ||
      record->isLambda()) {
    return type_name(type, context);
  }
  nested.push_back(record->getDefinition());
  return std::nullopt;
}

std::optional<Shape> build_shape(clang::QualType type, const clang::ASTContext& context,
                                 const RoutingLookup& routing_of, std::string* unsupported) {
  Shape shape;
  shape.type = type_name(type, context);
  const clang::QualType canonical = type.getCanonicalType();
  const clang::CXXRecordDecl* record =
      canonical->isReferenceType() ? nullptr : record_of(canonical);
  if (record != nullptr) {
    if (message_kind_of(record)) {
      shape.kind = Shape::Kind::Message;
      shape.message_routing = routing_of(record->getDefinition());
      return shape;
    }
    const std::string name = template_or_class_name(record);
    if (name == "whizbang::RoutedNone") {
      shape.kind = Shape::Kind::RoutedNone;
      return shape;
    }
    if (const auto* spec = as_specialization(record)) {
      const std::vector<clang::QualType> args = type_arguments(spec);
      std::optional<Shape::Kind> kind;
      if (name == "std::tuple" || name == "std::pair") kind = Shape::Kind::Tuple;
      if (name == "whizbang::Routed") kind = Shape::Kind::Routed;
      if (contains_message(canonical)) {
        if (name == "std::vector" || name == "std::array" || name == "std::span") {
          kind = Shape::Kind::Range;
        }
        if (name == "std::optional") kind = Shape::Kind::Optional;
      }
      if (kind) {
        shape.kind = *kind;
        const std::size_t count = *kind == Shape::Kind::Tuple ? args.size() : 1;
        for (std::size_t i = 0; i < count && i < args.size(); ++i) {
          std::optional<Shape> child = build_shape(args[i], context, routing_of, unsupported);
          if (!child) return std::nullopt;
          shape.children.push_back(*std::move(child));
        }
        return shape;
      }
    }
  }
  if (contains_message(canonical)) {
    *unsupported = shape.type;
    return std::nullopt;
  }
  shape.kind = Shape::Kind::Ignored;
  return shape;
}

}  // namespace whizgen
