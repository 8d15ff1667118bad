#include "cli/json_output.hpp"

#include "rapidjson/document.h"

namespace whizbang::cli {

JsonOutput::JsonOutput() : writer_(buffer_) { writer_.SetIndent(' ', 2); }

void JsonOutput::key(std::string_view name) {
  writer_.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
}

void JsonOutput::string(std::string_view text) {
  writer_.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

void JsonOutput::optional_string(const std::optional<std::string>& text) {
  if (text) {
    string(*text);
  } else {
    writer_.Null();
  }
}

void JsonOutput::uuid(const Uuid& id) { string(id.to_string()); }

void JsonOutput::optional_uuid(const std::optional<Uuid>& id) {
  if (id) {
    uuid(*id);
  } else {
    writer_.Null();
  }
}

void JsonOutput::json_or_string(std::string_view text) {
  rapidjson::Document document;
  document.Parse(text.data(), text.size());
  if (document.HasParseError()) {
    string(text);
  } else {
    document.Accept(writer_);
  }
}

std::string JsonOutput::str() const {
  return std::string(buffer_.GetString(), buffer_.GetSize()) + "\n";
}

}  // namespace whizbang::cli
