// Scanner: receptor classes: the message they handle, their annotations, handle() and result.
#include "scanner_internal.hpp"

#include <algorithm>

namespace whizgen::scanning {

void Scanner::scan_receptor(const PendingReceptor& pending) {
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
    receptor.stages = kDefaultStageNames;
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
      report(record->getLocation(), Code::UnsupportedResult,
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
  model_.receptors.push_back(std::move(receptor));
}

void Scanner::read_receptor_annotation(const Annotation& a, ReceptorModel& receptor) {
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

bool Scanner::has_handle(const clang::CXXRecordDecl* record, clang::QualType message,
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

void Scanner::check_commands() {
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

clang::SourceLocation Scanner::receptor_location(const std::string& id) {
  for (const PendingReceptor& pending : receptors_) {
    if (type_name(context_.getRecordType(pending.record), context_) == id) {
      return pending.record->getLocation();
    }
  }
  return {};
}

}  // namespace whizgen::scanning
