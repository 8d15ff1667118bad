// Parsing untrusted JSON (envelopes read from stores and transports) with bounded nesting, valid
// UTF-8 and unique keys.
//
// rapidjson's default parser recurses once per nesting level, so a corrupt envelope of a few
// hundred thousand '[' overflowed the stack (SIGSEGV) instead of failing. parse_bounded() is the
// same recursive parser (no slower) but stops with an error past kMaxJsonDepth levels, which also
// keeps later recursive walks of the document (Value::Accept) shallow. rapidjson's iterative
// parser would avoid the recursion too, but parses a typical envelope about 30% slower.
//
// It also refuses what rapidjson accepts by default but a receiver must not: invalid UTF-8 (it
// would be stored and sent on to others) and an object with one key twice (rapidjson keeps both
// and lookups take the first, while other readers take the last: two readers of one envelope
// would disagree on who sent it).
//
// Numbers are read as correctly rounded, as .NET and strtod read them: rapidjson's default reads
// about one double in five with 17 significant digits one unit in the last place off, so a value
// forwarded through a service changed on the way, and its full-precision path is undefined
// behaviour on a zero with a large exponent (0e-30) in the rapidjson Debian ships. So the handler
// reads each double again from its text (BoundedDocumentHandler::Double).
//
//   rapidjson::Document document;
//   whizbang::internal::BoundedParseResult parsed = whizbang::internal::parse_bounded(json,
//   document); if (parsed.IsError()) return error(describe_parse_error(parsed));
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace whizbang::internal {

// Envelopes nest a handful of levels and payloads rarely more than a few dozen.
inline constexpr unsigned kMaxJsonDepth = 1000;

// True when `text` is well-formed UTF-8 with no surrogate code points. Checked on every decoded
// string, so it covers raw bytes and escapes alike (rapidjson decodes a "\uDC00" escape, an
// unpaired low surrogate, into bytes that are not UTF-8).
inline bool valid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    // ASCII, the usual case, eight bytes at a time.
    std::uint64_t eight = 0;
    while (text.size() - i >= sizeof eight) {
      std::memcpy(&eight, text.data() + i, sizeof eight);
      if ((eight & 0x8080808080808080ull) != 0) break;
      i += sizeof eight;
    }
    if (i == text.size()) break;
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    std::uint32_t code = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
      code = lead & 0x1Fu;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3;
      code = lead & 0x0Fu;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      code = lead & 0x07u;
    } else {
      return false;
    }
    if (text.size() - i < length) return false;
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      code = (code << 6) | (next & 0x3Fu);
    }
    if (length == 3 && (code < 0x800 || (code >= 0xD800 && code <= 0xDFFF))) return false;
    if (length == 4 && (code < 0x10000 || code > 0x10FFFF)) return false;
    i += length;
  }
  return true;
}

namespace bounded_json_detail {

// A character of a JSON number. None of them can come just before one.
inline bool in_number(char c) {
  return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
}

// True when the number `text` (as the JSON grammar spells it, already checked by the reader) is
// at least 1 in magnitude: whether a value std::from_chars found out of range overflowed or
// underflowed.
inline bool magnitude_at_least_one(std::string_view text) {
  const std::size_t exponent_at = text.find_first_of("eE");
  const std::string_view digits = text.substr(0, exponent_at);
  long long exponent = 0;  // the leading nonzero digit's power of ten
  const std::size_t point = digits.find('.');
  const std::size_t integer_end = point == std::string_view::npos ? digits.size() : point;
  const std::size_t first = digits.find_first_of("123456789");
  if (first == std::string_view::npos) return false;
  exponent = first < integer_end ? static_cast<long long>(integer_end - first) - 1
                                 : -static_cast<long long>(first - integer_end);
  if (exponent_at != std::string_view::npos) {
    std::string_view written = text.substr(exponent_at + 1);
    const bool negative = !written.empty() && written.front() == '-';
    if (!written.empty() && (written.front() == '-' || written.front() == '+')) {
      written.remove_prefix(1);
    }
    long long value = 0;
    const auto [end, error] =
        std::from_chars(written.data(), written.data() + written.size(), value);
    if (error == std::errc::result_out_of_range) return !negative;  // beyond any digit count
    exponent += negative ? -value : value;
  }
  return exponent >= 0;
}

}  // namespace bounded_json_detail

// What the reader reads: a NUL-terminated copy of the text, which it decodes each string into
// where the string stands, as rapidjson's InsituStringStream does, so the document points at its
// strings instead of copying each one (parsing an envelope took 40% longer with the copies). The
// position stays in this object, where the handler reads it (Double()): rapidjson's own stream
// is copied into the reader's locals.
class InPlaceTextStream {
 public:
  using Ch = char;
  explicit InPlaceTextStream(Ch* text) : next_(text), head_(text) {}
  Ch Peek() const { return *next_; }
  Ch Take() { return *next_++; }
  std::size_t Tell() const { return static_cast<std::size_t>(next_ - head_); }
  // A string's decoded bytes are written from its first byte on: never past the quote that ends
  // it, since decoding never lengthens a string.
  Ch* PutBegin() {
    ascii_ = true;
    return written_ = next_;
  }
  void Put(Ch c) {
    ascii_ &= (static_cast<unsigned char>(c) & 0x80u) == 0;
    *written_++ = c;
  }
  void Flush() {}
  std::size_t PutEnd(Ch* begin) { return static_cast<std::size_t>(written_ - begin); }
  // Whether the string decoded last is all ASCII, and so valid UTF-8 with no further check.
  bool decoded_ascii() const { return ascii_; }

  // Bytes read past the text's NUL, which the text must be followed by: take_plain_run() reads
  // a word at a time.
  static constexpr std::size_t kPadding = sizeof(std::uint64_t) - 1;

  // Takes the run of string bytes that need no decoding (no quote, backslash or control byte;
  // the NUL after the text is a control byte) and writes it where the string's decoded bytes
  // go, a word at a time: rapidjson's reader takes a byte per step, which was a quarter of an
  // envelope's decode. Leaves the reader on the byte that ends the run.
  void take_plain_run() {
    Ch* const from = next_;
    std::uint64_t seen = 0;  // the run's bytes or'ed together: their high bits say "not ASCII"
    for (;;) {
      std::uint64_t word = 0;
      std::memcpy(&word, next_, sizeof word);
      if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap64(word);
      const std::uint64_t special = special_bytes(word);
      if (special == 0) {
        seen |= word;
        next_ += sizeof word;
        continue;
      }
      // The first special byte is the word's lowest flagged one (the word is read little-endian,
      // its first byte the lowest). Only the bytes before it belong to the run.
      const std::uint64_t first_flag = special & (~special + 1);
      seen |= word & (first_flag - 1);
      next_ += static_cast<unsigned>(std::countr_zero(special)) / 8;
      break;
    }
    ascii_ &= (seen & 0x8080808080808080ull) == 0;
    const auto length = static_cast<std::size_t>(next_ - from);
    if (written_ != from && length != 0) std::memmove(written_, from, length);
    written_ += length;
  }

 private:
  // The high bit of each special byte of the word (a byte below 0x20, a '"' or a '\\'), by the
  // usual bit tricks: a byte below n, a byte equal to zero after an xor. A borrow can flag a
  // byte above a special one, never one below it, so the lowest flag is exact.
  static std::uint64_t special_bytes(std::uint64_t word) {
    constexpr std::uint64_t kOnes = 0x0101010101010101ull;
    constexpr std::uint64_t kHighs = 0x8080808080808080ull;
    const auto zero_byte = [](std::uint64_t v) { return (v - kOnes) & ~v & kHighs; };
    const std::uint64_t control = (word - kOnes * 0x20) & ~word & kHighs;
    return control | zero_byte(word ^ (kOnes * '"')) | zero_byte(word ^ (kOnes * '\\'));
  }

  Ch* next_;
  Ch* head_;
  Ch* written_ = nullptr;
  bool ascii_ = true;
};

}  // namespace whizbang::internal

// rapidjson's reader asks its input for the run of bytes that need no decoding before each step
// of a string; for any stream but its own (and only when built with SSE) the answer is none. This
// one answers with the run (the reader's own streams keep their position in the reader, where the
// handler cannot see it: InPlaceTextStream).
template <>
template <>
inline void
rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>, rapidjson::CrtAllocator>::
    ScanCopyUnescapedString(whizbang::internal::InPlaceTextStream& input,
                            whizbang::internal::InPlaceTextStream& /*the same stream*/) {
  input.take_plain_run();
}

namespace whizbang::internal {

// Forwards SAX events to the document being built, refusing to open level kMaxJsonDepth + 1 and
// strings (values and keys) that do not decode to UTF-8.
class BoundedDocumentHandler {
 public:
  // `position` is the stream the reader reads `input` from.
  BoundedDocumentHandler(rapidjson::Document& document, std::string_view input,
                         const InPlaceTextStream& position)
      : document_(document), input_(input), position_(position) {}

  bool Null() { return document_.Null(); }
  bool Bool(bool b) { return document_.Bool(b); }
  bool Int(int i) { return document_.Int(i); }
  bool Uint(unsigned i) { return document_.Uint(i); }
  bool Int64(std::int64_t i) { return document_.Int64(i); }
  bool Uint64(std::uint64_t i) { return document_.Uint64(i); }
  // rapidjson reads integers exactly and types them by range; a double it only approximates.
  // Its text has just been read, so it ends at the reader's position: read it again with
  // std::from_chars, which is correctly rounded. A number beyond a double's range is refused
  // (rapidjson would give infinity, which no writer can write back); one too small for it reads
  // as zero.
  bool Double(double /*approximation*/) {
    const char* const end = input_.data() + position_.Tell();
    const char* begin = end;
    while (begin != input_.data() && bounded_json_detail::in_number(begin[-1])) --begin;
    double value = 0;
    const std::from_chars_result read = std::from_chars(begin, end, value);
    if (read.ec == std::errc::result_out_of_range) {
      if (bounded_json_detail::magnitude_at_least_one(std::string_view(begin, end - begin))) {
        refusal_ = "a number too big for a double";
        return false;
      }
      value = *begin == '-' ? -0.0 : 0.0;
    } else if (read.ec != std::errc() || read.ptr != end) {
      refusal_ = "a number that does not read as a double";
      return false;
    }
    return document_.Double(value);
  }
  // Only called with kParseNumbersAsStringsFlag, which parse_bounded() does not set.
  bool RawNumber(const char* text, rapidjson::SizeType length, bool copy) {
    return document_.RawNumber(text, length, copy);
  }
  bool String(const char* text, rapidjson::SizeType length, bool copy) {
    return utf8(text, length) && document_.String(text, length, copy);
  }
  bool Key(const char* text, rapidjson::SizeType length, bool copy) {
    return utf8(text, length) && document_.Key(text, length, copy);
  }
  bool StartObject() { return deeper() && document_.StartObject(); }
  bool EndObject(rapidjson::SizeType members) {
    --depth_;
    return document_.EndObject(members);
  }
  bool StartArray() { return deeper() && document_.StartArray(); }
  bool EndArray(rapidjson::SizeType elements) {
    --depth_;
    return document_.EndArray(elements);
  }

  // Why the handler stopped the parse (rapidjson reports it as "terminated").
  const char* refusal() const { return refusal_; }

 private:
  bool deeper() {
    if (++depth_ <= kMaxJsonDepth) return true;
    refusal_ = "nested too deeply";
    return false;
  }
  bool utf8(const char* text, rapidjson::SizeType length) {
    if (position_.decoded_ascii() || valid_utf8(std::string_view(text, length))) return true;
    refusal_ = "a string whose encoding is not UTF-8 (or an unpaired surrogate escape)";
    return false;
  }

  rapidjson::Document& document_;
  std::string_view input_;
  const InPlaceTextStream& position_;
  unsigned depth_ = 0;
  const char* refusal_ = "";
};

// rapidjson's result, plus the reason when the refusal is this reader's own (nesting too deep, a
// duplicate key), for which rapidjson only knows "terminated".
struct BoundedParseResult : rapidjson::ParseResult {
  std::string refusal;
};

namespace bounded_json_detail {

inline std::string_view name_of(const rapidjson::Value& name) {
  return {name.GetString(), name.GetStringLength()};
}

// A key's length and first and last bytes in one word: most keys of one object differ there, so
// the pairwise check compares words and calls memcmp only for equal ones.
inline std::uint32_t key_signature(const rapidjson::Value& name) {
  const rapidjson::SizeType length = name.GetStringLength();
  if (length == 0) return 0;
  const auto* text = reinterpret_cast<const unsigned char*>(name.GetString());
  return (static_cast<std::uint32_t>(length & 0xffffu) << 16) |
         (static_cast<std::uint32_t>(text[0]) << 8) | text[length - 1];
}

// The first key that appears twice in one object of `value` (its second appearance), or nullptr.
// Small objects (all of an envelope's) compare the keys whose signatures may be equal; large ones
// sort their keys, so a hostile object of 100000 keys costs n log n, not n².
inline const rapidjson::Value* duplicate_key(const rapidjson::Value& value) {
  if (value.IsArray()) {
    for (const rapidjson::Value& item : value.GetArray()) {
      if (item.IsObject() || item.IsArray()) {
        if (const rapidjson::Value* found = duplicate_key(item)) return found;
      }
    }
    return nullptr;
  }
  if (!value.IsObject()) return nullptr;
  constexpr rapidjson::SizeType kPairwiseLimit = 16;
  const auto begin = value.MemberBegin();
  const rapidjson::SizeType count = value.MemberCount();
  if (count <= kPairwiseLimit) {
    // One bit per signature's hash marks the keys seen so far; only a key whose bit is already
    // set is compared with the keys before it (once per object or so). Comparing every pair of
    // signatures was most of this check's time.
    std::array<std::uint32_t, kPairwiseLimit> signatures;
    std::uint64_t seen = 0;
    for (rapidjson::SizeType i = 0; i < count; ++i) {
      const std::uint32_t signature = key_signature(begin[i].name);
      signatures[i] = signature;
      const std::uint64_t bit = std::uint64_t{1} << ((signature * 0x9e3779b9u) >> 26);
      if ((seen & bit) != 0) {
        for (rapidjson::SizeType j = 0; j < i; ++j) {
          if (signatures[j] == signature && name_of(begin[j].name) == name_of(begin[i].name)) {
            return &begin[i].name;
          }
        }
      }
      seen |= bit;
    }
  } else {
    std::vector<const rapidjson::Value*> names;
    names.reserve(count);
    for (auto it = begin; it != value.MemberEnd(); ++it) names.push_back(&it->name);
    std::sort(names.begin(), names.end(), [](const rapidjson::Value* a, const rapidjson::Value* b) {
      return name_of(*a) < name_of(*b);
    });
    for (std::size_t i = 1; i < names.size(); ++i) {
      if (name_of(*names[i - 1]) == name_of(*names[i])) return names[i];
    }
  }
  for (auto it = begin; it != value.MemberEnd(); ++it) {
    if (!it->value.IsObject() && !it->value.IsArray()) continue;
    if (const rapidjson::Value* found = duplicate_key(it->value)) return found;
  }
  return nullptr;
}

}  // namespace bounded_json_detail

// Parses `json` into `document` as Document::Parse(data, size) would, nesting at most
// kMaxJsonDepth levels, refusing invalid UTF-8 and duplicate keys. On error `document` is left
// null; the result says where and why.
//
// The document's strings point into a copy of `json` kept in the document's own allocator, so
// they live as long as the document does. A value copied into another document (CopyFrom, or
// the copy constructor with an allocator) copies such a string by reference: it must not
// outlive this document.
inline BoundedParseResult parse_bounded(std::string_view json, rapidjson::Document& document) {
  BoundedParseResult result;
  auto generate = [&](rapidjson::Document& target) {
    // NUL-terminated, as the reader reads fastest (no bounds check per character); a NUL inside
    // the text ends the stream early and is refused below.
    auto* text = static_cast<char*>(
        target.GetAllocator().Malloc(json.size() + 1 + InPlaceTextStream::kPadding));
    if (!json.empty()) std::memcpy(text, json.data(), json.size());
    std::memset(text + json.size(), 0, 1 + InPlaceTextStream::kPadding);
    InPlaceTextStream input(text);
    rapidjson::Reader reader;
    BoundedDocumentHandler handler(target, std::string_view(text, json.size()), input);
    // The handler validates each decoded string (raw bytes and escapes alike): rapidjson's own
    // kParseValidateEncodingFlag checks per character and cost a third of an envelope's decode.
    static_cast<rapidjson::ParseResult&>(result) =
        reader.Parse<rapidjson::kParseInsituFlag>(input, handler);
    if (result.Code() == rapidjson::kParseErrorTermination) result.refusal = handler.refusal();
    if (!result.IsError() && input.Tell() != json.size()) {
      // A NUL byte where the text went on: what a length-bounded reader reports for it.
      result.Set(rapidjson::kParseErrorDocumentRootNotSingular, input.Tell());
    }
    return !result.IsError();
  };
  document.Populate(generate);
  if (result.IsError()) {
    document.SetNull();  // not what it held before
  } else {
    if (const rapidjson::Value* key = bounded_json_detail::duplicate_key(document)) {
      constexpr std::size_t kShown = 64;  // a key can be as long as the input
      result.refusal = "duplicate key \"";
      result.refusal.append(key->GetString(),
                            std::min<std::size_t>(key->GetStringLength(), kShown));
      result.refusal += key->GetStringLength() > kShown ? "…\" in one object" : "\" in one object";
      result.Set(rapidjson::kParseErrorTermination, 0);
      document.SetNull();
    }
  }
  return result;
}

// Why parse_bounded() failed, in words.
inline std::string parse_error_text(const BoundedParseResult& result) {
  if (!result.refusal.empty()) return result.refusal;
  return rapidjson::GetParseError_En(result.Code());
}

// Where and why, for an error message: "at offset 12: Invalid encoding in string." (a duplicate
// key has no offset: the document is read whole before its keys are compared).
inline std::string describe_parse_error(const BoundedParseResult& result) {
  if (result.refusal.starts_with("duplicate key")) return result.refusal;
  return "at offset " + std::to_string(result.Offset()) + ": " + parse_error_text(result);
}

}  // namespace whizbang::internal
