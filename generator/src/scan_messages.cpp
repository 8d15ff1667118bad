// Scanner: message types, their fields and the order their JSON codecs are emitted in.
#include "scanner_internal.hpp"

#include "dotnet_member_types.hpp"
#include "dotnet_names.hpp"

#include <algorithm>
#include <functional>
#include <set>

namespace whizgen::scanning {
namespace {

// How many classes or structs `record` is nested in (0 for a namespace-scope type).
std::size_t enclosing_records(const clang::CXXRecordDecl* record) {
  std::size_t depth = 0;
  for (const clang::DeclContext* context = record->getDeclContext();
       context != nullptr && context->isRecord(); context = context->getParent()) {
    ++depth;
  }
  return depth;
}

}  // namespace

void Scanner::scan_message(const clang::CXXRecordDecl* record, MessageKind kind,
                           const std::vector<Annotation>& annotations) {
  MessageModel message;
  message.cpp_name = type_name(context_.getRecordType(record), context_);
  message.wire_name = nested_wire_name(message.cpp_name, enclosing_records(record));
  message.kind = kind;
  message.location = location_of(record->getLocation());
  const Annotation* wire_name = nullptr;
  for (const Annotation& a : annotations) {
    if (a.name == "wire_name") {
      if (std::optional<std::string> name = string_argument(a)) {
        message.wire_name = *name;
        wire_name = &a;
      }
    } else if (a.name == "dotnet_type") {
      std::optional<std::string> type = string_argument(a);
      if (!type) continue;
      if (std::optional<std::string> problem = dotnet_type_problem(*type)) {
        report(a.args[0]->getExprLoc(), Code::BadDotNetName,
               "[[whizbang::dotnet_type]] on '" + message.cpp_name + "': " + *problem);
        continue;
      }
      message.dotnet_type = normalized_dotnet_type(*type);
    } else if (a.name == "default_routing") {
      message.default_routing = routing_attribute(a);
    } else if (a.name == "version") {
      message.version = version_argument(a).value_or(1);
    } else {
      report(a.loc, Code::MisplacedAttribute,
             "[[whizbang::" + a.name + "]] applies to receptors, not to message type '" +
                 message.cpp_name + "'");
    }
  }
  if (!message.dotnet_type.empty()) {
    // Shared with .NET: routed and named on the wire by the .NET full name, as .NET does.
    const std::string full_name = dotnet_full_name(message.dotnet_type);
    if (wire_name != nullptr && message.wire_name != full_name) {
      report(wire_name->loc, Code::BadDotNetName,
             "[[whizbang::wire_name(\"" + message.wire_name + "\")]] on '" + message.cpp_name +
                 "' disagrees with its [[whizbang::dotnet_type]]: a type shared with .NET goes by "
                 "its .NET full name '" +
                 full_name + "' (drop wire_name)");
    }
    message.wire_name = full_name;
  }
  message.fields = scan_fields(record, message.cpp_name);
  if (!message.dotnet_type.empty()) check_unique_dotnet_names(message, record);
  message_routing_[record] = message.default_routing;
  message_records_[message.cpp_name] = record;
  model_.messages.push_back(std::move(message));
}

// Public data members (bases first, marker bases skipped); nested structs queued.
std::vector<Field> Scanner::scan_fields(const clang::CXXRecordDecl* record,
                                        const std::string& owner) {
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
                 "MessageId, system_clock::time_point, whizbang::DateTime, DateOnly, TimeOnly, "
                 "TimeSpan)");
      continue;
    }
    for (const clang::CXXRecordDecl* n : nested) codec_edges_[record].push_back(n);
    const std::string name = field->getNameAsString();
    fields.push_back({name, type_name(field->getType(), context_), dotnet_name_of(field, owner),
                      dotnet_member_type(field->getType(), context_)});
  }
  codec_fields_[record] = fields;
  return fields;
}

std::string Scanner::dotnet_name_of(const clang::FieldDecl* field, const std::string& owner) {
  if (auto known = dotnet_names_.find(field); known != dotnet_names_.end()) return known->second;
  const std::string name = field->getNameAsString();
  std::string dotnet_name = pascal_case(name);
  for (const Annotation& a : annotations_of(field)) {
    if (a.name != "dotnet_name") continue;
    std::optional<std::string> given = string_argument(a);
    if (!given) continue;
    if (!is_csharp_identifier(*given)) {
      report(a.args[0]->getExprLoc(), Code::BadDotNetName,
             "[[whizbang::dotnet_name(\"" + *given + "\")]] on '" + owner + "::" + name +
                 "' is not a C# property name");
      continue;
    }
    dotnet_name = *given;
  }
  dotnet_names_[field] = dotnet_name;
  return dotnet_name;
}

void Scanner::check_unique_dotnet_names(const MessageModel& message,
                                        const clang::CXXRecordDecl* record) {
  std::map<std::string, const Field*> seen;
  for (const Field& field : message.fields) {
    auto [it, inserted] = seen.emplace(field.dotnet_name, &field);
    if (inserted) continue;
    report(record->getLocation(), Code::BadDotNetName,
           "members '" + it->second->name + "' and '" + field.name + "' of '" + message.cpp_name +
               "' are both '" + field.dotnet_name +
               "' in C#: give one a [[whizbang::dotnet_name]]");
  }
}

void Scanner::check_dotnet_names() {
  for (const clang::FieldDecl* field : dotnet_named_fields_) {
    if (dotnet_names_.count(field)) continue;
    for (const Annotation& a : annotations_of(field)) {
      if (a.name != "dotnet_name") continue;
      report(a.loc, Code::MisplacedAttribute,
             "[[whizbang::dotnet_name]] on '" + field->getQualifiedNameAsString() +
                 "', which no message codec encodes: it applies to public data members of "
                 "message types and of the structs they hold");
    }
  }
}

void Scanner::order_messages() {
  std::stable_sort(
      model_.messages.begin(), model_.messages.end(),
      [](const MessageModel& a, const MessageModel& b) { return a.wire_name < b.wire_name; });
  for (std::size_t i = 1; i < model_.messages.size(); ++i) {
    const MessageModel& previous = model_.messages[i - 1];
    const MessageModel& current = model_.messages[i];
    if (previous.wire_name != current.wire_name) continue;
    report(message_records_[current.cpp_name]->getLocation(), Code::DuplicateWireName,
           "wire name '" + current.wire_name + "' of '" + current.cpp_name +
               "' is already used by '" + previous.cpp_name + "' (" + previous.location.file + ":" +
               std::to_string(previous.location.line) + ")");
  }
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < model_.messages.size(); ++i) {
    index[model_.messages[i].cpp_name] = i;
  }
  std::stable_sort(model_.receptors.begin(), model_.receptors.end(),
                   [&index](const ReceptorModel& a, const ReceptorModel& b) {
                     return index[a.message] < index[b.message];
                   });
  std::size_t receptor = 0;
  for (MessageModel& message : model_.messages) {
    message.first_receptor = receptor;
    for (; receptor < model_.receptors.size() &&
           model_.receptors[receptor].message == message.cpp_name;
         ++receptor) {
      if (!message.receptor_default_routing) {
        message.receptor_default_routing = model_.receptors[receptor].default_routing;
      }
    }
    message.receptor_count = receptor - message.first_receptor;
  }
}

// Post-order over codec types: a struct's codec follows the codecs of the structs it uses.
void Scanner::build_codec_order() {
  std::set<const clang::CXXRecordDecl*> done;
  std::set<const clang::CXXRecordDecl*> messages;
  for (const auto& [name, record] : message_records_) messages.insert(record);
  std::function<void(const clang::CXXRecordDecl*)> visit = [&](const clang::CXXRecordDecl* record) {
    if (!done.insert(record).second) return;
    if (!codec_fields_.count(record)) {
      const std::string name = type_name(context_.getRecordType(record), context_);
      scan_fields(record, name);
    }
    for (const clang::CXXRecordDecl* nested : codec_edges_[record]) visit(nested);
    const std::string name = type_name(context_.getRecordType(record), context_);
    if (!messages.count(record)) {
      model_.structs.push_back({name, location_of(record->getLocation()), codec_fields_[record]});
    }
    model_.codec_order.push_back(name);
  };
  for (const MessageModel& message : model_.messages) {
    // Old shapes first: the message's upcast function decodes them.
    for (const clang::CXXRecordDecl* shape : old_shape_records(message.cpp_name)) visit(shape);
    visit(message_records_[message.cpp_name]);
  }
  for (const clang::CXXRecordDecl* model : perspective_models_) visit(model);
}

}  // namespace whizgen::scanning
