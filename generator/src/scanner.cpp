#include "scanner.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "attributes.hpp"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "diagnostics.hpp"
#include "type_shapes.hpp"

namespace whizgen {
namespace {

// One [[whizbang::name(args...)]] use.
struct Annotation {
  std::string name;  // without the scope
  clang::SourceLocation loc;
  std::vector<const clang::Expr*> args;
};

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

// "Stage::PostInboxInline" -> {"whizbang::Stage", "PostInboxInline"}.
std::optional<std::pair<std::string, std::string>> enumerator_of(const clang::Expr* expr) {
  const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(expr->IgnoreParenImpCasts());
  if (ref == nullptr) return std::nullopt;
  const auto* constant = llvm::dyn_cast<clang::EnumConstantDecl>(ref->getDecl());
  if (constant == nullptr) return std::nullopt;
  const auto* enum_decl = llvm::cast<clang::EnumDecl>(constant->getDeclContext());
  return std::make_pair(enum_decl->getQualifiedNameAsString(), constant->getNameAsString());
}

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

  bool VisitDecl(clang::Decl* decl) {
    const auto* record = llvm::dyn_cast<clang::CXXRecordDecl>(decl);
    if (record != nullptr && !llvm::isa<clang::ClassTemplateSpecializationDecl>(record)) {
      return true;  // checked as a record in VisitCXXRecordDecl
    }
    for (const Annotation& a : annotations_of(decl)) {
      report(a.loc, Code::MisplacedAttribute,
             "[[whizbang::" + a.name + "]] applies to message types and receptor classes only");
    }
    return true;
  }

  bool VisitCXXRecordDecl(clang::CXXRecordDecl* record) {
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
      for (const Annotation& a : annotations) {
        report(a.loc, Code::MisplacedAttribute,
               "[[whizbang::" + a.name + "]] on perspective '" +
                   record->getQualifiedNameAsString() + "': perspectives take no attributes");
      }
      perspectives_.push_back({record, perspective_base});
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
  void finish() {
    for (const PendingReceptor& pending : receptors_) scan_receptor(pending);
    order_messages();
    check_commands();
    for (const PendingPerspective& pending : perspectives_) scan_perspective(pending);
    order_perspectives();
    build_codec_order();
  }

 private:
  struct PendingReceptor {
    const clang::CXXRecordDecl* record;
    const clang::ClassTemplateSpecializationDecl* base;
    std::vector<Annotation> annotations;
  };

  struct PendingPerspective {
    const clang::CXXRecordDecl* record;
    const clang::ClassTemplateSpecializationDecl* base;
  };

  void report(clang::SourceLocation loc, Code code, const std::string& message) {
    Diagnostics::instance().report(sm_, loc, code, message);
  }

  Location location_of(clang::SourceLocation loc) const {
    const clang::PresumedLoc presumed = sm_.getPresumedLoc(sm_.getFileLoc(loc));
    if (!presumed.isValid()) return {};
    return {relative_to_root(presumed.getFilename(), root_), presumed.getLine()};
  }

  std::optional<std::string> enum_argument(const Annotation& a, std::size_t index,
                                           std::string_view enum_name, Code code) {
    const auto value = enumerator_of(a.args[index]);
    if (!value || value->first != enum_name) {
      report(a.args[index]->getExprLoc(), code,
             "argument " + std::to_string(index + 1) + " of [[whizbang::" + a.name +
                 "]] must be a " + std::string(enum_name) + " enumerator");
      return std::nullopt;
    }
    return value->second;
  }

  bool expect_args(const Annotation& a, std::size_t min, std::size_t max) {
    if (a.args.size() >= min && a.args.size() <= max) return true;
    report(a.loc, Code::BadAttributeArgument,
           "[[whizbang::" + a.name + "]] takes " +
               (min == max ? std::to_string(min)
                           : std::to_string(min) + " to " + std::to_string(max)) +
               " argument(s), got " + std::to_string(a.args.size()));
    return false;
  }

  std::optional<std::string> routing_attribute(const Annotation& a) {
    if (!expect_args(a, 1, 1)) return std::nullopt;
    return enum_argument(a, 0, "whizbang::DispatchModes", Code::BadAttributeArgument);
  }

  void scan_message(const clang::CXXRecordDecl* record, MessageKind kind,
                    const std::vector<Annotation>& annotations) {
    MessageModel message;
    message.cpp_name = type_name(context_.getRecordType(record), context_);
    message.wire_name = message.cpp_name;
    message.kind = kind;
    message.location = location_of(record->getLocation());
    for (const Annotation& a : annotations) {
      if (a.name == "wire_name") {
        if (!expect_args(a, 1, 1)) continue;
        const auto* literal =
            llvm::dyn_cast<clang::StringLiteral>(a.args[0]->IgnoreParenImpCasts());
        if (literal == nullptr || literal->getLength() == 0) {
          report(a.args[0]->getExprLoc(), Code::BadAttributeArgument,
                 "[[whizbang::wire_name]] takes a non-empty string literal");
          continue;
        }
        message.wire_name = literal->getString().str();
      } else if (a.name == "default_routing") {
        message.default_routing = routing_attribute(a);
      } else {
        report(a.loc, Code::MisplacedAttribute,
               "[[whizbang::" + a.name + "]] applies to receptors, not to message type '" +
                   message.cpp_name + "'");
      }
    }
    message.fields = scan_fields(record, message.cpp_name);
    message_routing_[record] = message.default_routing;
    message_records_[message.cpp_name] = record;
    model_.messages.push_back(std::move(message));
  }

  // Public data members (bases first, marker bases skipped); nested structs queued.
  std::vector<Field> scan_fields(const clang::CXXRecordDecl* record, const std::string& owner) {
    std::vector<Field> fields;
    for (const clang::CXXBaseSpecifier& base : record->bases()) {
      const clang::CXXRecordDecl* base_record = record_of(base.getType());
      if (base_record == nullptr || base.getAccessSpecifier() != clang::AS_public) continue;
      const std::string base_name = template_or_class_name(base_record);
      if (base_name.rfind("whizbang::", 0) == 0 || !base_record->hasDefinition()) continue;
      std::vector<Field> inherited = scan_fields(base_record->getDefinition(), owner);
      fields.insert(fields.end(), inherited.begin(), inherited.end());
    }
    for (const clang::FieldDecl* field : record->fields()) {
      if (field->getAccess() != clang::AS_public || field->isUnnamedBitField()) continue;
      std::vector<const clang::CXXRecordDecl*> nested;
      if (const auto problem = check_field_type(field->getType(), context_, nested)) {
        report(field->getLocation(), Code::UnsupportedField,
               "field '" + owner + "::" + field->getNameAsString() + "' has unsupported type '" +
                   *problem +
                   "' (supported: arithmetic, bool, enums, std::string, "
                   "std::optional, std::vector, std::map<std::string, T>, plain structs, Uuid, "
                   "MessageId, system_clock::time_point)");
        continue;
      }
      for (const clang::CXXRecordDecl* n : nested) codec_edges_[record].push_back(n);
      fields.push_back({field->getNameAsString(), type_name(field->getType(), context_)});
    }
    codec_fields_[record] = fields;
    return fields;
  }

  void scan_receptor(const PendingReceptor& pending) {
    const clang::CXXRecordDecl* record = pending.record;
    ReceptorModel receptor;
    receptor.id = type_name(context_.getRecordType(record), context_);
    receptor.location = location_of(record->getLocation());
    const clang::TemplateArgumentList& args = pending.base->getTemplateArgs();
    const clang::QualType message_type = args[0].getAsType();
    const clang::QualType result_type = args.size() > 1 ? args[1].getAsType() : context_.VoidTy;
    const clang::CXXRecordDecl* message_record = record_of(message_type);
    if (message_record == nullptr || !message_kind_of(message_record)) {
      report(record->getLocation(), Code::NotAMessage,
             "receptor '" + receptor.id + "' handles '" + type_name(message_type, context_) +
                 "', which does not derive from whizbang::Event or whizbang::Command");
      return;
    }
    receptor.message = type_name(context_.getRecordType(message_record->getDefinition()), context_);
    if (!message_records_.count(receptor.message)) {
      report(record->getLocation(), Code::NotAMessage,
             "receptor '" + receptor.id + "' handles '" + receptor.message +
                 "', which is declared in a system header or in namespace whizbang");
      return;
    }

    for (const Annotation& a : pending.annotations) read_receptor_annotation(a, receptor);
    if (receptor.stages.empty()) {
      receptor.default_stages = true;
      receptor.stages = {"LocalImmediateDetached", "PostInboxDetached"};
    } else {
      receptor.default_stages = false;
    }

    if (!has_handle(record, message_type, result_type)) {
      report(record->getLocation(), Code::MissingHandle,
             "receptor '" + receptor.id + "' has no public member '" +
                 type_name(result_type, context_) + " handle(const " + receptor.message +
                 "&)' matching its whizbang::Receptor base");
      return;
    }
    if (!result_type->isVoidType()) {
      receptor.response_type = type_name(result_type, context_);
      std::string unsupported;
      const RoutingLookup lookup = [this](const clang::CXXRecordDecl* message) {
        auto it = message_routing_.find(message);
        return it == message_routing_.end() ? std::nullopt : it->second;
      };
      receptor.result = build_shape(result_type, context_, lookup, &unsupported);
      if (!receptor.result) {
        report(
            record->getLocation(), Code::UnsupportedResult,
            "receptor '" + receptor.id + "' returns '" + receptor.response_type +
                "': cannot extract messages from '" + unsupported +
                "' (supported: messages, std::tuple/std::pair, std::vector/std::array/std::span, "
                "std::optional, whizbang::Routed/RoutedNone)");
        return;
      }
    }
    if (!scan_dependencies(record, "receptor '" + receptor.id + "'", receptor.dependencies)) {
      return;
    }
    receptor_messages_.push_back(message_record->getDefinition());
    model_.receptors.push_back(std::move(receptor));
  }

  void read_receptor_annotation(const Annotation& a, ReceptorModel& receptor) {
    if (a.name == "fire_at") {
      if (!expect_args(a, 1, 15)) return;
      for (std::size_t i = 0; i < a.args.size(); ++i) {
        auto stage = enum_argument(a, i, "whizbang::Stage", Code::UnknownStage);
        if (!stage) continue;
        if (*stage == "AfterReceptorCompletion") {
          report(a.args[i]->getExprLoc(), Code::UnknownStage,
                 "whizbang::Stage::AfterReceptorCompletion is a tag hook, not a firing stage");
          continue;
        }
        if (std::find(receptor.stages.begin(), receptor.stages.end(), *stage) ==
            receptor.stages.end()) {
          receptor.stages.push_back(*stage);
        }
      }
    } else if (a.name == "once_across_services") {
      if (expect_args(a, 0, 0)) receptor.once_across_services = true;
    } else if (a.name == "idempotent") {
      if (!expect_args(a, 0, 1)) return;
      receptor.idempotent = true;
      if (a.args.size() == 1) {
        auto replay = enum_argument(a, 0, "whizbang::OnReplay", Code::BadAttributeArgument);
        receptor.always_fire = replay && *replay == "AlwaysFire";
      }
    } else if (a.name == "default_routing") {
      receptor.default_routing = routing_attribute(a);
    } else {
      report(a.loc, Code::MisplacedAttribute,
             "[[whizbang::" + a.name + "]] applies to message types, not to receptor '" +
                 receptor.id + "'");
    }
  }

  bool has_handle(const clang::CXXRecordDecl* record, clang::QualType message,
                  clang::QualType result) {
    const clang::DeclarationName name(&context_.Idents.get("handle"));
    for (const clang::NamedDecl* decl : record->lookup(name)) {
      const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(decl);
      if (method == nullptr || method->isStatic() || method->getAccess() != clang::AS_public ||
          method->getNumParams() != 1 || method->isDeleted()) {
        continue;
      }
      clang::QualType param = method->getParamDecl(0)->getType();
      if (param->isRValueReferenceType()) continue;
      if (param->isLValueReferenceType()) {
        param = param->getPointeeType();
        if (!param.isConstQualified()) continue;
      }
      if (!context_.hasSameUnqualifiedType(param, message)) continue;
      if (context_.hasSameType(method->getReturnType(), result)) return true;
    }
    return false;
  }

  // A perspective's model: a plain struct outside system headers and namespace whizbang.
  const clang::CXXRecordDecl* perspective_model_of(const PendingPerspective& pending,
                                                   const std::string& id) {
    const clang::QualType model_type = pending.base->getTemplateArgs()[0].getAsType();
    const clang::CXXRecordDecl* model = record_of(model_type);
    std::string why;
    if (model == nullptr || !model->hasDefinition()) {
      why = "is not a (complete) struct";
    } else if (sm_.isInSystemHeader(model->getDefinition()->getLocation()) ||
               template_or_class_name(model).rfind("whizbang::", 0) == 0) {
      why = "is declared in a system header or in namespace whizbang";
    } else if (model->getDefinition()->isAbstract()) {
      why = "is abstract";
    }
    if (!why.empty()) {
      report(pending.record->getLocation(), Code::BadPerspective,
             "perspective '" + id + "' has model type '" + type_name(model_type, context_) +
                 "', which " + why + " (a model is a plain struct)");
      return nullptr;
    }
    return model->getDefinition();
  }

  void scan_perspective(const PendingPerspective& pending) {
    const clang::CXXRecordDecl* record = pending.record;
    PerspectiveModel perspective;
    perspective.id = type_name(context_.getRecordType(record), context_);
    perspective.location = location_of(record->getLocation());
    const clang::CXXRecordDecl* model = perspective_model_of(pending, perspective.id);
    if (model == nullptr) return;
    perspective.model = type_name(context_.getRecordType(model), context_);
    const clang::QualType model_type = context_.getRecordType(model);

    bool ok = true;
    const clang::DeclarationName name(&context_.Idents.get("apply"));
    for (const clang::NamedDecl* decl : record->lookup(name)) {
      const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(decl);
      if (method == nullptr || method->isStatic() || method->getAccess() != clang::AS_public ||
          method->isDeleted()) {
        continue;
      }
      const std::string shape = "'void apply(" + perspective.model + "&, const Event&)'";
      auto bad = [&](clang::SourceLocation at, const std::string& why) {
        report(at, Code::BadPerspective,
               "apply of perspective '" + perspective.id + "' " + why + "; expected " + shape);
        ok = false;
      };
      if (method->getNumParams() != 2) {
        bad(method->getLocation(),
            "takes " + std::to_string(method->getNumParams()) + " parameter(s)");
        continue;
      }
      const clang::QualType first = method->getParamDecl(0)->getType();
      if (!first->isLValueReferenceType() || first->getPointeeType().isConstQualified() ||
          !context_.hasSameUnqualifiedType(first->getPointeeType(), model_type)) {
        bad(method->getParamDecl(0)->getLocation(),
            "takes '" + type_name(first, context_) + "' first");
        continue;
      }
      clang::QualType second = method->getParamDecl(1)->getType();
      if (second->isRValueReferenceType() ||
          (second->isLValueReferenceType() && !second->getPointeeType().isConstQualified())) {
        bad(method->getParamDecl(1)->getLocation(),
            "takes the event as '" + type_name(second, context_) + "'");
        continue;
      }
      if (second->isLValueReferenceType()) second = second->getPointeeType();
      const std::string result = type_name(method->getReturnType(), context_);
      if (!method->getReturnType()->isVoidType() && result != "absl::Status") {
        bad(method->getLocation(), "returns '" + result + "' (void or absl::Status)");
        continue;
      }
      const clang::CXXRecordDecl* event = record_of(second);
      const std::string event_name =
          event && event->hasDefinition()
              ? type_name(context_.getRecordType(event->getDefinition()), context_)
              : type_name(second, context_);
      if (event == nullptr || message_kind_of(event) != MessageKind::Event ||
          !message_records_.count(event_name)) {
        report(method->getParamDecl(1)->getLocation(), Code::PerspectiveNotEvent,
               "perspective '" + perspective.id + "' applies '" + event_name +
                   "', which is not an event type (derive it from whizbang::Event)");
        ok = false;
        continue;
      }
      if (std::find(perspective.events.begin(), perspective.events.end(), event_name) ==
          perspective.events.end()) {
        perspective.events.push_back(event_name);
      }
    }
    if (!ok) return;
    if (perspective.events.empty()) {
      report(record->getLocation(), Code::BadPerspective,
             "perspective '" + perspective.id + "' has no public 'void apply(" + perspective.model +
                 "&, const Event&)'");
      return;
    }
    if (!scan_dependencies(record, "perspective '" + perspective.id + "'",
                           perspective.dependencies)) {
      return;
    }
    perspective_models_.push_back(model);
    model_.perspectives.push_back(std::move(perspective));
  }

  // Perspectives by name; each one's events in messages (wire-name) order.
  void order_perspectives() {
    std::map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < model_.messages.size(); ++i) {
      index[model_.messages[i].cpp_name] = i;
    }
    for (PerspectiveModel& perspective : model_.perspectives) {
      std::sort(
          perspective.events.begin(), perspective.events.end(),
          [&index](const std::string& a, const std::string& b) { return index[a] < index[b]; });
    }
    std::sort(model_.perspectives.begin(), model_.perspectives.end(),
              [](const PerspectiveModel& a, const PerspectiveModel& b) { return a.id < b.id; });
  }

  bool scan_dependencies(const clang::CXXRecordDecl* record, const std::string& owner,
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

  void order_messages() {
    std::stable_sort(
        model_.messages.begin(), model_.messages.end(),
        [](const MessageModel& a, const MessageModel& b) { return a.wire_name < b.wire_name; });
    for (std::size_t i = 1; i < model_.messages.size(); ++i) {
      const MessageModel& previous = model_.messages[i - 1];
      const MessageModel& current = model_.messages[i];
      if (previous.wire_name != current.wire_name) continue;
      report(message_records_[current.cpp_name]->getLocation(), Code::DuplicateWireName,
             "wire name '" + current.wire_name + "' of '" + current.cpp_name +
                 "' is already used by '" + previous.cpp_name + "' (" + previous.location.file +
                 ":" + std::to_string(previous.location.line) + ")");
    }
    std::map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < model_.messages.size(); ++i) {
      index[model_.messages[i].cpp_name] = i;
    }
    std::stable_sort(model_.receptors.begin(), model_.receptors.end(),
                     [&index](const ReceptorModel& a, const ReceptorModel& b) {
                       return index[a.message] < index[b.message];
                     });
  }

  void check_commands() {
    std::map<std::string, const ReceptorModel*> first;
    for (const ReceptorModel& receptor : model_.receptors) {
      const clang::CXXRecordDecl* message = message_records_[receptor.message];
      if (message_kind_of(message) != MessageKind::Command) continue;
      auto [it, inserted] = first.emplace(receptor.message, &receptor);
      if (inserted) continue;
      report(receptor_location(receptor.id), Code::CommandReceptors,
             "command '" + receptor.message + "' already has receptor '" + it->second->id +
                 "'; a command has exactly one receptor (use an event to fan out)");
    }
  }

  clang::SourceLocation receptor_location(const std::string& id) {
    for (const PendingReceptor& pending : receptors_) {
      if (type_name(context_.getRecordType(pending.record), context_) == id) {
        return pending.record->getLocation();
      }
    }
    return {};
  }

  // Post-order over codec types: a struct's codec follows the codecs of the structs it uses.
  void build_codec_order() {
    std::set<const clang::CXXRecordDecl*> done;
    std::set<const clang::CXXRecordDecl*> messages;
    for (const auto& [name, record] : message_records_) messages.insert(record);
    std::function<void(const clang::CXXRecordDecl*)> visit =
        [&](const clang::CXXRecordDecl* record) {
          if (!done.insert(record).second) return;
          if (!codec_fields_.count(record)) {
            const std::string name = type_name(context_.getRecordType(record), context_);
            scan_fields(record, name);
          }
          for (const clang::CXXRecordDecl* nested : codec_edges_[record]) visit(nested);
          const std::string name = type_name(context_.getRecordType(record), context_);
          if (!messages.count(record)) {
            model_.structs.push_back(
                {name, location_of(record->getLocation()), codec_fields_[record]});
          }
          model_.codec_order.push_back(name);
        };
    for (const MessageModel& message : model_.messages) {
      visit(message_records_[message.cpp_name]);
    }
    for (const clang::CXXRecordDecl* model : perspective_models_) visit(model);
  }

  clang::ASTContext& context_;
  const clang::SourceManager& sm_;
  const std::string& root_;
  Model& model_;
  std::vector<PendingReceptor> receptors_;
  std::vector<PendingPerspective> perspectives_;
  std::vector<const clang::CXXRecordDecl*> perspective_models_;
  std::vector<const clang::CXXRecordDecl*> receptor_messages_;
  std::map<const clang::CXXRecordDecl*, std::optional<std::string>> message_routing_;
  std::map<std::string, const clang::CXXRecordDecl*> message_records_;
  std::map<const clang::CXXRecordDecl*, std::vector<const clang::CXXRecordDecl*>> codec_edges_;
  std::map<const clang::CXXRecordDecl*, std::vector<Field>> codec_fields_;
};

}  // namespace

std::string relative_to_root(const std::string& path, const std::string& root) {
  if (root.empty()) return path;
  std::string prefix = root;
  if (prefix.back() != '/') prefix += '/';
  return path.rfind(prefix, 0) == 0 ? path.substr(prefix.size()) : path;
}

void scan(clang::ASTContext& context, const std::string& root, Model& model) {
  Scanner scanner(context, root, model);
  scanner.TraverseDecl(context.getTranslationUnitDecl());
  scanner.finish();
}

}  // namespace whizgen
