// JsonOutput: every --json document of the `whizbang` tool, written with RapidJSON so strings are
// always escaped correctly. The `store` and `gen explain` documents are pretty-printed (two-space
// indent); the `id` answers are one line each (CompactJsonOutput), for shell pipelines.
//
// Stored text is whatever a sender or a failing handler wrote, so the document is made strict
// (str()): valid UTF-8, each ill-formed sequence replaced by U+FFFD (utf8.hpp), and every control
// character escaped, the C0 ones as RapidJSON writes them (\n, \t, \u001B, ...), DEL and the C1
// controls as \u007F..\u009F. A strict parser reads it; a terminal shows no raw control.
//
//   JsonOutput json;
//   json.writer().StartObject();
//   json.key("file");
//   json.string(path);
//   json.writer().EndObject();
//   io.out << json.str();
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "rapidjson/prettywriter.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "whizbang/ids/uuid.hpp"

namespace whizbang::cli {

template <class Writer>
class BasicJsonOutput {
 public:
  BasicJsonOutput();

  Writer& writer() { return writer_; }
  void key(std::string_view name);
  void string(std::string_view text);
  void optional_string(const std::optional<std::string>& text);
  void uuid(const Uuid& id);
  void optional_uuid(const std::optional<Uuid>& id);
  // `text` itself when it is valid JSON (a payload), else `text` as a JSON string.
  void json_or_string(std::string_view text);
  // The document with a trailing newline; the writer must be complete.
  std::string str() const;

 private:
  rapidjson::StringBuffer buffer_;
  Writer writer_;
};

using JsonOutput = BasicJsonOutput<rapidjson::PrettyWriter<rapidjson::StringBuffer>>;
using CompactJsonOutput = BasicJsonOutput<rapidjson::Writer<rapidjson::StringBuffer>>;

extern template class BasicJsonOutput<rapidjson::PrettyWriter<rapidjson::StringBuffer>>;
extern template class BasicJsonOutput<rapidjson::Writer<rapidjson::StringBuffer>>;

}  // namespace whizbang::cli
