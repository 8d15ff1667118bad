// The scanner's class, shared by its files (one concern each): the traversal and what it sorts
// out (scanner.cpp), annotation arguments (scan_annotations.cpp), message types and their codecs
// (scan_messages.cpp), receptors (scan_receptors.cpp), perspectives (scan_perspectives.cpp) and
// the constructor dependencies of both (scan_dependencies.cpp).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "attributes.hpp"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "diagnostics.hpp"
#include "model.hpp"
#include "scanner.hpp"
#include "type_shapes.hpp"

namespace whizgen::scanning {

// One [[whizbang::name(args...)]] use.
struct Annotation {
  std::string name;  // without the scope
  clang::SourceLocation loc;
  std::vector<const clang::Expr*> args;
};

std::vector<Annotation> annotations_of(const clang::Decl* decl);

// "Stage::PostInboxInline" -> {"whizbang::Stage", "PostInboxInline"}.
std::optional<std::pair<std::string, std::string>> enumerator_of(const clang::Expr* expr);

class Scanner : public clang::RecursiveASTVisitor<Scanner> {
 public:
  Scanner(clang::ASTContext& context, const std::string& root, Model& model)
      : context_(context), sm_(context.getSourceManager()), root_(root), model_(model) {}

  bool TraverseDecl(clang::Decl* decl) {
    if (decl == nullptr) return true;
    if (!llvm::isa<clang::TranslationUnitDecl>(decl)) {
      if (sm_.isInSystemHeader(decl->getLocation())) return true;
      if (const auto* ns = llvm::dyn_cast<clang::NamespaceDecl>(decl)) {
        if (ns->getParent()->isTranslationUnit() &&
            (ns->getName() == "whizbang" || ns->getName() == "std")) {
          return true;
        }
      }
    }
    return RecursiveASTVisitor::TraverseDecl(decl);
  }

  // Misplaced annotations on anything but a class.
  bool VisitDecl(clang::Decl* decl);
  // Sorts a class out: message type, receptor, perspective, or misannotated.
  bool VisitCXXRecordDecl(clang::CXXRecordDecl* record);
  // After traversal: receptors need every message's attributes, so they are built last.
  void finish();

 private:
  struct PendingReceptor {
    const clang::CXXRecordDecl* record;
    const clang::ClassTemplateSpecializationDecl* base;
    std::vector<Annotation> annotations;
  };
  struct PendingPerspective {
    const clang::CXXRecordDecl* record;
    const clang::ClassTemplateSpecializationDecl* base;
    std::uint32_t version = 1;
  };
  // A plain struct with [[whizbang::version(K)]]: an older shape of some message type.
  struct OldShape {
    const clang::CXXRecordDecl* record;
    std::uint32_t version;
  };
  // A function with [[whizbang::upcaster]], not yet checked.
  struct PendingUpcaster {
    const clang::FunctionDecl* function;
    clang::SourceLocation loc;
  };

  // scanner.cpp
  void report(clang::SourceLocation loc, Code code, const std::string& message);
  Location location_of(clang::SourceLocation loc) const;

  // scan_annotations.cpp
  std::optional<std::string> enum_argument(const Annotation& a, std::size_t index,
                                           std::string_view enum_name, Code code);
  bool expect_args(const Annotation& a, std::size_t min, std::size_t max);
  std::optional<std::string> routing_attribute(const Annotation& a);
  // The one non-empty string literal argument of `a`; reported (WHIZ009) when it is not.
  std::optional<std::string> string_argument(const Annotation& a);
  // The one integer literal >= 1 of [[whizbang::version(N)]]; reported (WHIZ009) when it is not.
  std::optional<std::uint32_t> version_argument(const Annotation& a);

  // scan_messages.cpp
  void scan_message(const clang::CXXRecordDecl* record, MessageKind kind,
                    const std::vector<Annotation>& annotations);
  // Public data members (bases first, marker bases skipped); nested structs queued.
  std::vector<Field> scan_fields(const clang::CXXRecordDecl* record, const std::string& owner);
  // A member's C# property name: its [[whizbang::dotnet_name]] or its name in PascalCase.
  std::string dotnet_name_of(const clang::FieldDecl* field, const std::string& owner);
  // Two members of a message shared with .NET with one C# name: reported.
  void check_unique_dotnet_names(const MessageModel& message, const clang::CXXRecordDecl* record);
  // [[whizbang::dotnet_name]] on a member no codec encodes: reported as misplaced.
  void check_dotnet_names();
  // Messages by wire name (duplicates reported), receptors in their messages' order.
  void order_messages();
  // Post-order over codec types: a struct's codec follows the codecs of the structs it uses.
  void build_codec_order();

  // scan_receptors.cpp
  void scan_receptor(const PendingReceptor& pending);
  void read_receptor_annotation(const Annotation& a, ReceptorModel& receptor);
  bool has_handle(const clang::CXXRecordDecl* record, clang::QualType message,
                  clang::QualType result);
  // A command has exactly one receptor.
  void check_commands();
  clang::SourceLocation receptor_location(const std::string& id);

  // scan_perspectives.cpp
  // A perspective's model: a plain struct outside system headers and namespace whizbang.
  const clang::CXXRecordDecl* perspective_model_of(const PendingPerspective& pending,
                                                   const std::string& id);
  void scan_perspective(const PendingPerspective& pending);
  // Perspectives by name; each one's events in messages (wire-name) order.
  void order_perspectives();

  // scan_upcasters.cpp
  // A plain struct with annotations: an old shape when one of them is [[whizbang::version]].
  bool scan_old_shape(const clang::CXXRecordDecl* record,
                      const std::vector<Annotation>& annotations);
  void queue_upcaster(const clang::FunctionDecl* function, const Annotation& a);
  // Checks the upcasters and builds each message's chain (after order_messages).
  void build_upcast_chains();
  // The message type's old-shape records, oldest first (codecs precede the message's).
  std::vector<const clang::CXXRecordDecl*> old_shape_records(const std::string& message) const;

  // scan_dependencies.cpp: receptors and perspectives alike.
  bool scan_dependencies(const clang::CXXRecordDecl* record, const std::string& owner,
                         std::vector<Dependency>& dependencies);

  clang::ASTContext& context_;
  const clang::SourceManager& sm_;
  const std::string& root_;
  Model& model_;
  std::vector<PendingReceptor> receptors_;
  std::vector<PendingPerspective> perspectives_;
  std::vector<const clang::CXXRecordDecl*> perspective_models_;
  std::map<const clang::CXXRecordDecl*, std::optional<std::string>> message_routing_;
  std::map<std::string, const clang::CXXRecordDecl*> message_records_;
  std::map<const clang::CXXRecordDecl*, std::vector<const clang::CXXRecordDecl*>> codec_edges_;
  std::map<const clang::CXXRecordDecl*, std::vector<Field>> codec_fields_;
  // Members carrying [[whizbang::dotnet_name]], and those a codec read it from (a base's members
  // are scanned once per derived type: each is named, and reported, once).
  std::vector<const clang::FieldDecl*> dotnet_named_fields_;
  std::map<const clang::FieldDecl*, std::string> dotnet_names_;
  std::map<const clang::CXXRecordDecl*, OldShape> old_shapes_;
  std::vector<PendingUpcaster> upcasters_;
  // Per message (qualified name): its old-shape records by version.
  std::map<std::string, std::vector<const clang::CXXRecordDecl*>> message_shapes_;
};

}  // namespace whizgen::scanning
