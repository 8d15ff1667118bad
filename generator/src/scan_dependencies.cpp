// Scanner: the constructor a receptor or perspective is built with, and its services.
#include "scanner_internal.hpp"

namespace whizgen::scanning {

bool Scanner::scan_dependencies(const clang::CXXRecordDecl* record, const std::string& owner,
                                std::vector<Dependency>& dependencies) {
  const clang::CXXConstructorDecl* chosen = nullptr;
  bool has_user_ctor = false;
  for (const clang::CXXConstructorDecl* ctor : record->ctors()) {
    if (ctor->isImplicit() || ctor->isCopyOrMoveConstructor()) continue;
    has_user_ctor = true;
    if (ctor->isDeleted() || ctor->getAccess() != clang::AS_public) continue;
    if (chosen == nullptr || ctor->getNumParams() > chosen->getNumParams()) chosen = ctor;
  }
  if (chosen == nullptr) {
    if (has_user_ctor) {
      report(record->getLocation(), Code::BadDependency, owner + " has no public constructor");
      return false;
    }
    return true;
  }
  for (const clang::ParmVarDecl* param : chosen->parameters()) {
    const clang::QualType type = param->getType();
    Dependency dependency;
    clang::QualType service = type;
    if (type->isLValueReferenceType()) {
      service = type->getPointeeType();
      dependency.kind = Dependency::Kind::Reference;
    } else if (type->isPointerType()) {
      service = type->getPointeeType();
      dependency.kind = Dependency::Kind::Pointer;
    } else if (type->isRValueReferenceType() || type->isArrayType() ||
               type->isFunctionPointerType()) {
      report(param->getLocation(), Code::BadDependency,
             "constructor parameter '" + param->getNameAsString() + "' of " + owner +
                 " has type '" + type_name(type, context_) +
                 "'; take services as T&, const T&, T* or by value");
      return false;
    } else {
      dependency.kind = Dependency::Kind::Value;
    }
    dependency.type = type_name(service.getUnqualifiedType(), context_);
    dependencies.push_back(std::move(dependency));
  }
  return true;
}

}  // namespace whizgen::scanning
