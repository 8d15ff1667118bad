// JsonOutput: the --json documents of `whizbang store` and `whizbang gen explain`, written with
// RapidJSON's PrettyWriter (two-space indent) so strings are always escaped correctly.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "rapidjson/prettywriter.h"
#include "rapidjson/stringbuffer.h"
#include "whizbang/ids/uuid.hpp"

namespace whizbang::cli {

class JsonOutput {
 public:
  JsonOutput();

  rapidjson::PrettyWriter<rapidjson::StringBuffer>& writer() { return writer_; }
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
  rapidjson::PrettyWriter<rapidjson::StringBuffer> writer_;
};

}  // namespace whizbang::cli
