// Scanner: the traversal, what each declaration is, and the passes after it.
#include "scanner.hpp"

#include "scanner_internal.hpp"

namespace whizgen::scanning {

bool Scanner::VisitDecl(clang::Decl* decl) {
  const auto* record = llvm::dyn_cast<clang::CXXRecordDecl>(decl);
  if (record != nullptr && !llvm::isa<clang::ClassTemplateSpecializationDecl>(record)) {
    return true;  // checked as a record in VisitCXXRecordDecl
  }
  const auto* field = llvm::dyn_cast<clang::FieldDecl>(decl);
  const auto* function = llvm::dyn_cast<clang::FunctionDecl>(decl);
  for (const Annotation& a : annotations_of(decl)) {
    if (a.name == "dotnet_name" && field != nullptr) {
      dotnet_named_fields_.push_back(field);  // read when its type's codec is built
      continue;
    }
    if (a.name == "upcaster" && function != nullptr) {
      queue_upcaster(function, a);
      continue;
    }
    report(a.loc, Code::MisplacedAttribute,
           a.name == "dotnet_name"
               ? std::string("[[whizbang::dotnet_name]] applies to data members only")
           : a.name == "upcaster"
               ? std::string("[[whizbang::upcaster]] applies to free functions only")
               : "[[whizbang::" + a.name + "]] applies to message types and receptor classes only");
  }
  return true;
}

bool Scanner::VisitCXXRecordDecl(clang::CXXRecordDecl* record) {
  if (llvm::isa<clang::ClassTemplateSpecializationDecl>(record)) return true;
  if (!record->isThisDeclarationADefinition() || record->isLambda()) return true;
  const std::vector<Annotation> annotations = annotations_of(record);
  if (record->isDependentContext() || record->getDescribedClassTemplate() != nullptr) {
    for (const Annotation& a : annotations) {
      report(a.loc, Code::MisplacedAttribute,
             "[[whizbang::" + a.name + "]] on a class template: annotate concrete classes");
    }
    return true;
  }
  const std::optional<MessageKind> kind = message_kind_of(record);
  const clang::ClassTemplateSpecializationDecl* receptor_base = receptor_base_of(record);
  const clang::ClassTemplateSpecializationDecl* perspective_base = perspective_base_of(record);
  if (kind) {
    scan_message(record, *kind, annotations);
  } else if (receptor_base != nullptr && !record->isAbstract()) {
    receptors_.push_back({record, receptor_base, annotations});
  } else if (perspective_base != nullptr && !record->isAbstract()) {
    std::uint32_t version = 1;
    for (const Annotation& a : annotations) {
      if (a.name == "version") {
        version = version_argument(a).value_or(1);
        continue;
      }
      report(a.loc, Code::MisplacedAttribute,
             "[[whizbang::" + a.name + "]] on perspective '" + record->getQualifiedNameAsString() +
                 "': perspectives take only [[whizbang::version(N)]]");
    }
    perspectives_.push_back({record, perspective_base, version});
  } else if (scan_old_shape(record, annotations)) {
  } else {
    for (const Annotation& a : annotations) {
      report(a.loc, Code::MisplacedAttribute,
             "[[whizbang::" + a.name + "]] on '" + record->getQualifiedNameAsString() +
                 "', which is neither a message type (Event/Command) nor a receptor");
    }
  }
  return true;
}

// After traversal: receptors need every message's attributes, so they are built last.
void Scanner::finish() {
  for (const PendingReceptor& pending : receptors_) scan_receptor(pending);
  order_messages();
  build_upcast_chains();
  check_commands();
  for (const PendingPerspective& pending : perspectives_) scan_perspective(pending);
  order_perspectives();
  build_codec_order();
  check_dotnet_names();
}

void Scanner::report(clang::SourceLocation loc, Code code, const std::string& message) {
  Diagnostics::instance().report(sm_, loc, code, message);
}

Location Scanner::location_of(clang::SourceLocation loc) const {
  const clang::PresumedLoc presumed = sm_.getPresumedLoc(sm_.getFileLoc(loc));
  if (!presumed.isValid()) return {};
  return {relative_to_root(presumed.getFilename(), root_), presumed.getLine()};
}

}  // namespace whizgen::scanning

namespace whizgen {

std::string relative_to_root(const std::string& path, const std::string& root) {
  if (root.empty()) return path;
  std::string prefix = root;
  if (prefix.back() != '/') prefix += '/';
  return path.rfind(prefix, 0) == 0 ? path.substr(prefix.size()) : path;
}

void scan(clang::ASTContext& context, const std::string& root, Model& model) {
  scanning::Scanner scanner(context, root, model);
  scanner.TraverseDecl(context.getTranslationUnitDecl());
  scanner.finish();
}

}  // namespace whizgen
