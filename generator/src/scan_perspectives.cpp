// Scanner: perspective classes: their model and apply() overloads.
#include "scanner_internal.hpp"

#include <algorithm>

namespace whizgen::scanning {

// A perspective's model: a plain struct outside system headers and namespace whizbang.
const clang::CXXRecordDecl* Scanner::perspective_model_of(const PendingPerspective& pending,
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

void Scanner::scan_perspective(const PendingPerspective& pending) {
  const clang::CXXRecordDecl* record = pending.record;
  PerspectiveModel perspective;
  perspective.id = type_name(context_.getRecordType(record), context_);
  perspective.location = location_of(record->getLocation());
  perspective.version = pending.version;
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
void Scanner::order_perspectives() {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < model_.messages.size(); ++i) {
    index[model_.messages[i].cpp_name] = i;
  }
  for (PerspectiveModel& perspective : model_.perspectives) {
    std::sort(perspective.events.begin(), perspective.events.end(),
              [&index](const std::string& a, const std::string& b) { return index[a] < index[b]; });
  }
  std::sort(model_.perspectives.begin(), model_.perspectives.end(),
            [](const PerspectiveModel& a, const PerspectiveModel& b) { return a.id < b.id; });
}

}  // namespace whizgen::scanning
