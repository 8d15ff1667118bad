#include "cli/json_output.hpp"

#include <string_view>
#include <type_traits>

#include "fmt/format.h"
#include "rapidjson/document.h"
#include "whizbang/internal/bounded_json.hpp"
#include "whizbang/observability/utf8.hpp"

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

namespace {

// The document as strict readers take it. RapidJSON copies a string's bytes as they are and
// escapes only the C0 controls, so an ill-formed UTF-8 sequence (stored text, or a payload's
// escaped lone surrogate "\udc00", which its parser decodes to one) made the whole document
// unreadable. Here each ill-formed part becomes U+FFFD, and DEL and the C1 controls, which JSON
// allows raw, become \u007F..\u009F like the C0 controls, so a terminal showing the output runs
// none of them. Outside strings the writer emits ASCII only: this changes string contents alone.
std::string strict_json(std::string_view json) {
  std::string out;
  out.reserve(json.size() + 1);
  for (std::size_t i = 0; i < json.size();) {
    const auto byte = static_cast<unsigned char>(json[i]);
    if (byte < 0x7F) {
      out += json[i++];
      continue;
    }
    const Utf8Sequence sequence = byte == 0x7F ? Utf8Sequence{1, true} : utf8_sequence(json, i);
    if (!sequence.valid) {
      out.append(kUtf8Replacement);
    } else if (byte == 0x7F || (byte == 0xC2 && static_cast<unsigned char>(json[i + 1]) <= 0x9F)) {
      const unsigned code = byte == 0x7F ? 0x7Fu : static_cast<unsigned char>(json[i + 1]);
      out += fmt::format("\\u{:04X}", code);
    } else {
      out.append(json.substr(i, sequence.length));
    }
    i += sequence.length;
  }
  return out;
}

}  // namespace

template <class Writer>
std::string BasicJsonOutput<Writer>::str() const {
  return strict_json(std::string_view(buffer_.GetString(), buffer_.GetSize())) + "\n";
}

template class BasicJsonOutput<rapidjson::PrettyWriter<rapidjson::StringBuffer>>;
template class BasicJsonOutput<rapidjson::Writer<rapidjson::StringBuffer>>;

}  // namespace whizbang::cli
