// Scanner: event versions. Old shapes (plain structs with [[whizbang::version(K)]]), the
// [[whizbang::upcaster]] functions between them, and each message type's chain from every older
// version to its current one (docs/diagnostics.md, WHIZ015 and WHIZ016).
#include <algorithm>
#include <set>

#include "scanner_internal.hpp"

namespace whizgen::scanning {
namespace {

std::string where(const Location& location) {
  return location.file + ":" + std::to_string(location.line);
}

}  // namespace

bool Scanner::scan_old_shape(const clang::CXXRecordDecl* record,
                             const std::vector<Annotation>& annotations) {
  const auto is_version = [](const Annotation& a) { return a.name == "version"; };
  if (std::none_of(annotations.begin(), annotations.end(), is_version)) return false;
  const std::string name = record->getQualifiedNameAsString();
  std::optional<std::uint32_t> version;
  for (const Annotation& a : annotations) {
    if (is_version(a)) {
      version = version_argument(a);
      continue;
    }
    report(a.loc, Code::MisplacedAttribute,
           "[[whizbang::" + a.name + "]] on '" + name +
               "', an old shape of a message type: old shapes take only [[whizbang::version(N)]]");
  }
  if (version) old_shapes_.emplace(record->getDefinition(), OldShape{record, *version});
  return true;
}

void Scanner::queue_upcaster(const clang::FunctionDecl* function, const Annotation& a) {
  if (!a.args.empty()) {
    report(a.loc, Code::BadAttributeArgument, "[[whizbang::upcaster]] takes no arguments");
    return;
  }
  upcasters_.push_back({function, a.loc});
}

void Scanner::build_upcast_chains() {
  struct Edge {
    const clang::FunctionDecl* function;
    const clang::CXXRecordDecl* result;  // an old shape or a message type
    std::string result_name;
  };
  std::map<const clang::CXXRecordDecl*, Edge> edges;  // old shape -> its upcaster
  std::map<std::string, std::uint32_t> message_versions;
  // Old shapes with an upcaster refused above: not reported again as shapes nobody upcasts.
  std::set<const clang::CXXRecordDecl*> refused;
  for (const MessageModel& message : model_.messages) {
    message_versions[message.cpp_name] = message.version;
  }

  for (const PendingUpcaster& pending : upcasters_) {
    const clang::FunctionDecl* f = pending.function;
    const std::string name = f->getQualifiedNameAsString();
    auto bad = [&](const std::string& why) {
      report(f->getLocation(), Code::BadUpcaster, "upcaster '" + name + "' " + why);
    };
    const auto* method = llvm::dyn_cast<clang::CXXMethodDecl>(f);
    if ((method != nullptr && !method->isStatic()) || f->isTemplated() ||
        f->isInAnonymousNamespace() || f->getStorageClass() == clang::SC_Static) {
      bad("must be a free function (or static member) with external linkage, not a template or "
          "a member function");
      continue;
    }
    const std::string expected =
        "; expected 'Next upcast(const OldShape&)' where OldShape is a struct with "
        "[[whizbang::version(K)]] and Next the shape of version K+1 or the message type";
    if (f->getNumParams() != 1) {
      bad("takes " + std::to_string(f->getNumParams()) + " parameter(s)" + expected);
      continue;
    }
    clang::QualType param = f->getParamDecl(0)->getType();
    if (param->isRValueReferenceType() ||
        (param->isLValueReferenceType() && !param->getPointeeType().isConstQualified())) {
      bad("takes '" + type_name(param, context_) + "'" + expected);
      continue;
    }
    if (param->isLValueReferenceType()) param = param->getPointeeType();
    param = param.getUnqualifiedType();
    const clang::CXXRecordDecl* from = record_of(param);
    auto shape = from ? old_shapes_.find(from->getDefinition()) : old_shapes_.end();
    if (shape == old_shapes_.end()) {
      bad("takes '" + type_name(param, context_) + "', which has no [[whizbang::version(K)]]" +
          expected);
      continue;
    }
    const clang::QualType result_type = f->getReturnType();
    const clang::CXXRecordDecl* to =
        result_type->isReferenceType() ? nullptr : record_of(result_type);
    std::optional<std::uint32_t> to_version;
    std::string result_name = type_name(result_type.getUnqualifiedType(), context_);
    if (to != nullptr) {
      to = to->getDefinition();
      result_name = type_name(context_.getRecordType(to), context_);
      if (auto next = old_shapes_.find(to); next != old_shapes_.end()) {
        to_version = next->second.version;
      } else if (auto message = message_versions.find(result_name);
                 message != message_versions.end()) {
        to_version = message->second;
      }
    }
    if (!to_version) {
      refused.insert(shape->first);
      bad("returns '" + result_name + "', neither an old shape nor a message type" + expected);
      continue;
    }
    const std::uint32_t from_version = shape->second.version;
    refused.insert(shape->first);
    if (*to_version != from_version + 1) {
      bad("goes from version " + std::to_string(from_version) + " ('" + type_name(param, context_) +
          "') to version " + std::to_string(*to_version) + " ('" + result_name +
          "'): an upcaster goes from version K to version K+1");
      continue;
    }
    auto [it, inserted] = edges.emplace(shape->first, Edge{f, to, result_name});
    refused.erase(shape->first);
    if (!inserted) {
      bad("upcasts '" + type_name(param, context_) + "', which '" +
          it->second.function->getQualifiedNameAsString() + "' (" +
          where(location_of(it->second.function->getLocation())) +
          ") upcasts already: one upcaster per old shape");
    }
  }

  // Every old shape leads, step by step, to one message type.
  std::map<std::string, std::map<std::uint32_t, const clang::CXXRecordDecl*>> shapes_by_message;
  std::map<const clang::CXXRecordDecl*, const Edge*> first_step;
  for (const auto& [record, shape] : old_shapes_) {
    const std::string shape_name = type_name(context_.getRecordType(record), context_);
    const clang::CXXRecordDecl* at = record;
    bool complete = true;
    while (old_shapes_.count(at)) {
      auto edge = edges.find(at);
      if (edge == edges.end()) {
        complete = false;
        break;
      }
      at = edge->second.result;
    }
    if (!edges.count(record)) {
      if (refused.count(record)) continue;
      report(shape.record->getLocation(), Code::MissingUpcaster,
             "old shape '" + shape_name + "' (version " + std::to_string(shape.version) +
                 ") has no [[whizbang::upcaster]] from it: write 'Next upcast(const " + shape_name +
                 "&)' returning version " + std::to_string(shape.version + 1));
      continue;
    }
    if (!complete) continue;  // reported at the shape where the chain stops
    const std::string message = type_name(context_.getRecordType(at), context_);
    auto [it, inserted] = shapes_by_message[message].emplace(shape.version, record);
    if (!inserted) {
      report(shape.record->getLocation(), Code::BadUpcaster,
             "old shapes '" + type_name(context_.getRecordType(it->second), context_) + "' and '" +
                 shape_name + "' are both version " + std::to_string(shape.version) + " of '" +
                 message + "': one shape per version");
    }
  }

  for (MessageModel& message : model_.messages) {
    const auto& shapes = shapes_by_message[message.cpp_name];
    std::string missing;
    for (std::uint32_t k = 1; k < message.version; ++k) {
      auto shape = shapes.find(k);
      if (shape == shapes.end()) {
        if (!missing.empty()) missing += ", ";
        missing += std::to_string(k);
        continue;
      }
      const Edge& edge = edges.at(shape->second);
      message.upcasts.push_back({k, type_name(context_.getRecordType(shape->second), context_),
                                 edge.function->getQualifiedNameAsString(), edge.result_name,
                                 location_of(edge.function->getLocation())});
      message_shapes_[message.cpp_name].push_back(shape->second);
    }
    if (missing.empty()) continue;
    const std::string first = missing.substr(0, missing.find(','));
    report(message_records_[message.cpp_name]->getLocation(), Code::MissingUpcaster,
           "message type '" + message.cpp_name + "' is at version " +
               std::to_string(message.version) + " but stored or delivered payloads of version " +
               missing + " cannot reach it: declare the version-" + first +
               " shape as a struct with [[whizbang::version(" + first +
               ")]] and a [[whizbang::upcaster]] from it to version " +
               std::to_string(std::stoul(first) + 1));
  }
}

std::vector<const clang::CXXRecordDecl*> Scanner::old_shape_records(
    const std::string& message) const {
  auto it = message_shapes_.find(message);
  return it == message_shapes_.end() ? std::vector<const clang::CXXRecordDecl*>{} : it->second;
}

}  // namespace whizgen::scanning
