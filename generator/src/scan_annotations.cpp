// Scanner: reading [[whizbang::...]] annotations and their arguments.
#include "scanner_internal.hpp"

namespace whizgen::scanning {

std::vector<Annotation> annotations_of(const clang::Decl* decl) {
  std::vector<Annotation> out;
  for (const auto* attr : decl->specific_attrs<clang::AnnotateAttr>()) {
    const llvm::StringRef annotation = attr->getAnnotation();
    if (!annotation.starts_with(kAnnotationPrefix)) continue;
    Annotation a{annotation.drop_front(kAnnotationPrefix.size()).str(), attr->getLocation(), {}};
    for (const clang::Expr* arg : attr->args()) a.args.push_back(arg);
    out.push_back(std::move(a));
  }
  return out;
}

std::optional<std::pair<std::string, std::string>> enumerator_of(const clang::Expr* expr) {
  const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(expr->IgnoreParenImpCasts());
  if (ref == nullptr) return std::nullopt;
  const auto* constant = llvm::dyn_cast<clang::EnumConstantDecl>(ref->getDecl());
  if (constant == nullptr) return std::nullopt;
  const auto* enum_decl = llvm::cast<clang::EnumDecl>(constant->getDeclContext());
  return std::make_pair(enum_decl->getQualifiedNameAsString(), constant->getNameAsString());
}

std::optional<std::string> Scanner::enum_argument(const Annotation& a, std::size_t index,
                                                  std::string_view enum_name, Code code) {
  const auto value = enumerator_of(a.args[index]);
  if (!value || value->first != enum_name) {
    report(a.args[index]->getExprLoc(), code,
           "argument " + std::to_string(index + 1) + " of [[whizbang::" + a.name + "]] must be a " +
               std::string(enum_name) + " enumerator");
    return std::nullopt;
  }
  return value->second;
}

bool Scanner::expect_args(const Annotation& a, std::size_t min, std::size_t max) {
  if (a.args.size() >= min && a.args.size() <= max) return true;
  report(
      a.loc, Code::BadAttributeArgument,
      "[[whizbang::" + a.name + "]] takes " +
          (min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max)) +
          " argument(s), got " + std::to_string(a.args.size()));
  return false;
}

std::optional<std::string> Scanner::string_argument(const Annotation& a) {
  if (!expect_args(a, 1, 1)) return std::nullopt;
  const auto* literal = llvm::dyn_cast<clang::StringLiteral>(a.args[0]->IgnoreParenImpCasts());
  if (literal == nullptr || literal->getLength() == 0 ||
      !(literal->isOrdinary() || literal->isUTF8())) {
    report(a.args[0]->getExprLoc(), Code::BadAttributeArgument,
           "[[whizbang::" + a.name + "]] takes a non-empty string literal");
    return std::nullopt;
  }
  return literal->getString().str();
}

std::optional<std::uint32_t> Scanner::version_argument(const Annotation& a) {
  if (!expect_args(a, 1, 1)) return std::nullopt;
  const auto* literal = llvm::dyn_cast<clang::IntegerLiteral>(a.args[0]->IgnoreParenImpCasts());
  if (literal == nullptr || literal->getValue().getActiveBits() > 31 ||
      literal->getValue().getZExtValue() < 1) {
    report(a.args[0]->getExprLoc(), Code::BadAttributeArgument,
           "[[whizbang::version]] takes one integer literal >= 1 (the version of the current "
           "shape)");
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(literal->getValue().getZExtValue());
}

std::optional<std::string> Scanner::routing_attribute(const Annotation& a) {
  if (!expect_args(a, 1, 1)) return std::nullopt;
  return enum_argument(a, 0, "whizbang::DispatchModes", Code::BadAttributeArgument);
}

}  // namespace whizgen::scanning
