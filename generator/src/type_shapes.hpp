// Type classification on Clang types: names, message/receptor detection, codec support of a
// field type, and the cascade Shape of a receptor result.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "model.hpp"

namespace whizgen {

// Fully qualified spelling without a leading "::", typedef sugar kept ("std::string").
std::string type_name(clang::QualType type, const clang::ASTContext& context);

// "std::tuple" for a specialization of std::tuple, the qualified class name otherwise.
std::string template_or_class_name(const clang::CXXRecordDecl* record);

const clang::CXXRecordDecl* record_of(clang::QualType type);

// Event or Command when `record` derives (directly or not) from whizbang::Event/Command.
std::optional<MessageKind> message_kind_of(const clang::CXXRecordDecl* record);

// The whizbang::Receptor<M, R> specialization `record` derives from, or nullptr.
const clang::ClassTemplateSpecializationDecl* receptor_base_of(const clang::CXXRecordDecl* record);

// The whizbang::Perspective<Model> specialization `record` derives from, or nullptr.
const clang::ClassTemplateSpecializationDecl* perspective_base_of(
    const clang::CXXRecordDecl* record);

// Codec support for a field type. Returns the unsupported (sub)type spelled, or nullopt when
// supported. Plain structs the field reaches are appended to `nested` (the caller checks their
// fields in turn).
std::optional<std::string> check_field_type(clang::QualType type, const clang::ASTContext& context,
                                            std::vector<const clang::CXXRecordDecl*>& nested);

// The cascade walk of a receptor result type. `routing_of` gives a message type's
// default_routing attribute. On an unsupported shape returns nullopt and sets `unsupported` to
// the offending type.
using RoutingLookup =
    std::function<std::optional<std::string>(const clang::CXXRecordDecl* message)>;
std::optional<Shape> build_shape(clang::QualType type, const clang::ASTContext& context,
                                 const RoutingLookup& routing_of, std::string* unsupported);

}  // namespace whizgen
