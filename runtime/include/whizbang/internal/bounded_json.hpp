// Parsing untrusted JSON (envelopes read from stores and transports) with bounded nesting.
//
// rapidjson's default parser recurses once per nesting level, so a corrupt envelope of a few
// hundred thousand '[' overflowed the stack (SIGSEGV) instead of failing. parse_bounded() is the
// same recursive parser (no slower) but stops with an error past kMaxJsonDepth levels, which also
// keeps later recursive walks of the document (Value::Accept) shallow. rapidjson's iterative
// parser would avoid the recursion too, but parses a typical envelope about 30% slower.
//
//   rapidjson::Document document;
//   rapidjson::ParseResult parsed = whizbang::internal::parse_bounded(json, document);
//   if (parsed.IsError()) return error(parsed.Offset(), parse_error_text(parsed));
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/encodedstream.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <cstdint>
#include <string_view>

namespace whizbang::internal {

// Envelopes nest a handful of levels and payloads rarely more than a few dozen.
inline constexpr unsigned kMaxJsonDepth = 1000;

// Forwards SAX events to the document being built, refusing to open level kMaxJsonDepth + 1.
class BoundedDocumentHandler {
 public:
  explicit BoundedDocumentHandler(rapidjson::Document& document) : document_(document) {}

  bool Null() { return document_.Null(); }
  bool Bool(bool b) { return document_.Bool(b); }
  bool Int(int i) { return document_.Int(i); }
  bool Uint(unsigned i) { return document_.Uint(i); }
  bool Int64(std::int64_t i) { return document_.Int64(i); }
  bool Uint64(std::uint64_t i) { return document_.Uint64(i); }
  bool Double(double d) { return document_.Double(d); }
  bool RawNumber(const char* text, rapidjson::SizeType length, bool copy) {
    return document_.RawNumber(text, length, copy);
  }
  bool String(const char* text, rapidjson::SizeType length, bool copy) {
    return document_.String(text, length, copy);
  }
  bool Key(const char* text, rapidjson::SizeType length, bool copy) {
    return document_.Key(text, length, copy);
  }
  bool StartObject() { return ++depth_ <= kMaxJsonDepth && document_.StartObject(); }
  bool EndObject(rapidjson::SizeType members) {
    --depth_;
    return document_.EndObject(members);
  }
  bool StartArray() { return ++depth_ <= kMaxJsonDepth && document_.StartArray(); }
  bool EndArray(rapidjson::SizeType elements) {
    --depth_;
    return document_.EndArray(elements);
  }

 private:
  rapidjson::Document& document_;
  unsigned depth_ = 0;
};

// Parses `json` into `document` as Document::Parse(data, size) would, nesting at most
// kMaxJsonDepth levels. On error `document` is left null; the result says where and why.
inline rapidjson::ParseResult parse_bounded(std::string_view json, rapidjson::Document& document) {
  rapidjson::ParseResult result;
  auto generate = [&](rapidjson::Document& target) {
    rapidjson::MemoryStream memory(json.data(), json.size());
    rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> input(memory);
    rapidjson::Reader reader;
    BoundedDocumentHandler handler(target);
    result = reader.Parse(input, handler);
    return !result.IsError();
  };
  document.Populate(generate);
  return result;
}

// Why parse_bounded() failed, in words.
inline const char* parse_error_text(const rapidjson::ParseResult& result) {
  // The handler only refuses (terminates) on depth.
  if (result.Code() == rapidjson::kParseErrorTermination) return "nested too deeply";
  return rapidjson::GetParseError_En(result.Code());
}

}  // namespace whizbang::internal
