#include "cli/json_output.hpp"

#include <type_traits>

#include "rapidjson/document.h"
#include "whizbang/internal/bounded_json.hpp"

namespace whizbang::cli {

template <class Writer>
BasicJsonOutput<Writer>::BasicJsonOutput() : writer_(buffer_) {
  if constexpr (std::is_same_v<Writer, rapidjson::PrettyWriter<rapidjson::StringBuffer>>) {
    writer_.SetIndent(' ', 2);
  }
}

template <class Writer>
void BasicJsonOutput<Writer>::key(std::string_view name) {
  writer_.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
}

template <class Writer>
void BasicJsonOutput<Writer>::string(std::string_view text) {
  writer_.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

template <class Writer>
void BasicJsonOutput<Writer>::optional_string(const std::optional<std::string>& text) {
  if (text) {
    string(*text);
  } else {
    writer_.Null();
  }
}

template <class Writer>
void BasicJsonOutput<Writer>::uuid(const Uuid& id) {
  string(id.to_string());
}

template <class Writer>
void BasicJsonOutput<Writer>::optional_uuid(const std::optional<Uuid>& id) {
  if (id) {
    uuid(*id);
  } else {
    writer_.Null();
  }
}

template <class Writer>
void BasicJsonOutput<Writer>::json_or_string(std::string_view text) {
  rapidjson::Document document;
  // Bounded: stored text is untrusted; a few hundred thousand '[' overflowed the stack.
  if (internal::parse_bounded(text, document).IsError()) {
    string(text);
  } else {
    document.Accept(writer_);
  }
}

template <class Writer>
std::string BasicJsonOutput<Writer>::str() const {
  return std::string(buffer_.GetString(), buffer_.GetSize()) + "\n";
}

template class BasicJsonOutput<rapidjson::PrettyWriter<rapidjson::StringBuffer>>;
template class BasicJsonOutput<rapidjson::Writer<rapidjson::StringBuffer>>;

}  // namespace whizbang::cli
