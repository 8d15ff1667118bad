// The parts of the envelope JSON (envelope_json.cpp) shared by the files that read and write
// it: rapidjson writer helpers, the value readers with their shape errors, and the hop, record
// and security-scope forms. Private to src/message/.
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "whizbang/internal/status_macros.hpp"
#include "whizbang/message/envelope.hpp"
#include "whizbang/message/json_codec.hpp"

namespace whizbang::envelope_json {

// rapidjson's writer, with text that needs no escaping copied whole. rapidjson writes a string
// a byte at a time, each byte waiting on the buffer's end the byte before moved (its store may
// alias it): most of a serialize's time went there, on ids, times and keys that never need an
// escape.
class Writer : public rapidjson::Writer<rapidjson::StringBuffer> {
 public:
  using Base = rapidjson::Writer<rapidjson::StringBuffer>;
  explicit Writer(rapidjson::StringBuffer& out) : Base(out) {}

  // A string value or member name: the same bytes Base::String writes.
  void text(std::string_view value) {
    if (needs_escape(value)) {
      Base::String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
      return;
    }
    Prefix(rapidjson::kStringType);
    char* const at = os_->Push(value.size() + 2);
    at[0] = '"';
    if (!value.empty()) std::memcpy(at + 1, value.data(), value.size());
    at[value.size() + 1] = '"';
    EndValue(true);
  }

 private:
  // What rapidjson escapes (flags 0, UTF-8 in and out): control bytes, '"' and '\\'. Every byte
  // is tested, with no early exit, so the loop vectorizes.
  static bool needs_escape(std::string_view value) {
    bool found = false;
    for (const char c : value) {
      const auto byte = static_cast<unsigned char>(c);
      found |= (byte < 0x20) | (byte == '"') | (byte == '\\');
    }
    return found;
  }
};
using Value = rapidjson::Value;

// .NET's metadata key for the stream id.
inline constexpr std::string_view kAggregateId = "AggregateId";

// ---- writing ----------------------------------------------------------------------------------

inline void key(Writer& writer, std::string_view name) { writer.text(name); }
inline void string(Writer& writer, std::string_view text) { writer.text(text); }
inline void uuid(Writer& writer, const Uuid& id) {
  char text[Uuid::kTextSize];
  id.write_text(text);
  writer.text({text, sizeof text});
}

// The scope folded from the Current hops written or read so far: what the next hop's `sc` is a
// change from (docs/guide/16-security.md). Points into the hops, which outlive it.
class ScopeFold {
 public:
  // What `hop`'s scope is a change from: the fold for a Current hop (nullptr before any scope),
  // nothing for a Causation hop, whose scope stands alone.
  const SecurityScope* base(const MessageHop& hop) const {
    return hop.type == HopType::Current ? folded_ : nullptr;
  }
  // Takes in `hop` once written or read.
  void take(const MessageHop& hop) {
    if (hop.type == HopType::Current && hop.scope) folded_ = &*hop.scope;
  }

 private:
  const SecurityScope* folded_ = nullptr;
};

// A hop's `sc`: the change from `base` (the whole scope when nullptr); nothing when unchanged.
void write_scope(Writer& writer, const SecurityScope& scope,
                 const SecurityScope* base);                             // scope_delta_json.cpp
void write_hop(Writer& writer, const MessageHop& hop, ScopeFold& fold);  // hop_json.cpp
void write_record(Writer& writer, const ReceptorInvocationRecord& record);

// ---- reading (envelope_json_values.cpp) -------------------------------------------------------

// Where a value sits in the envelope ("$.h[1].si.ii"), for the shape error that names it. A path
// is its parent and one step, spelled out only when an error asks: a deserialize that succeeds
// builds no path text (building them all took a tenth of its time). A step's name must outlive
// the path (a literal, or a name in the document being read); so must its parent, which a path
// made as a call's argument always has.
class JsonPath {
 public:
  JsonPath(const char* root) : name_(root) {}  // NOLINT: "$" reads as the root's path
  JsonPath member(std::string_view name) const { return JsonPath(this, name, kNoIndex); }
  JsonPath at(std::size_t index) const { return JsonPath(this, {}, index); }
  std::string text() const;

 private:
  static constexpr std::size_t kNoIndex = static_cast<std::size_t>(-1);
  JsonPath(const JsonPath* parent, std::string_view name, std::size_t index)
      : parent_(parent), name_(name), index_(index) {}
  void append_to(std::string& out) const;

  const JsonPath* parent_ = nullptr;
  std::string_view name_;
  std::size_t index_ = kNoIndex;
};

// InvalidArgument "envelope JSON: <path> must be <expected>".
absl::Status shape_error(std::string_view path, std::string_view expected);
absl::Status shape_error(const JsonPath& path, std::string_view expected);
inline absl::Status shape_error(const char* path, std::string_view expected) {
  return shape_error(std::string_view(path), expected);
}
inline std::string_view key_text(const Value& key) {
  return {key.GetString(), key.GetStringLength()};
}
// Compared here, not by memcmp: the names are two to five bytes, and a call to the library's
// memcmp for each member a lookup passed cost a tenth of a deserialize.
inline bool same_name(std::string_view key, std::string_view name) {
  if (key.size() != name.size()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (key[i] != name[i]) return false;
  }
  return true;
}
// Where the member named `name` is among the object's members; -1 when it has none (or is no
// object). envelope_json_values.cpp.
std::ptrdiff_t member_index(const Value& object, std::string_view name);
// The member named `name`, or nullptr: for a reader of one member (a reader of several looks
// them up through Members, below).
const Value* member(const Value& object, std::string_view name);

// An object's members by name, for a reader that looks up several of them (envelope_json_
// members.cpp). A walk past every member per name was a tenth of a deserialize, most of the
// names absent, so a lookup tries two things first:
// - the member after the last one found: the readers look members up in the order the writer
//   writes them, so most lookups that find a member take one comparison;
// - a mask with a bit for each key's hash (made at the first lookup that needs it): a name
//   whose bit is clear is not there, and for a name given as a literal the compiler has
//   already hashed it.
// Only a member out of the writer's order (another sender's), or an absent name whose bit
// another key shares, walks the members. An object of more than kSmall members is walked per
// name. The object's keys must be unique (parse_bounded refuses a document whose keys are not).
class Members {
 public:
  explicit Members(const Value& object)
      : object_(object), small_(object.IsObject() && object.MemberCount() <= kSmall) {}
  // The member named `name`, or nullptr. Inline, so that a literal name is hashed and compared
  // by the compiler.
  [[gnu::always_inline]] const Value* find(std::string_view name) const {
    if (!small_) return walk(name);
    const auto begin = object_.MemberBegin();
    if (next_ < object_.MemberCount() && same_name(key_text(begin[next_].name), name)) {
      return &begin[next_++].value;
    }
    if ((mask() & bit_of(name)) == 0) return nullptr;
    return walk(name);
  }
  // By its short name, or else by its long one: the short one wins when both are there.
  const Value* find(std::string_view name, std::string_view long_name) const {
    if (const Value* by_name = find(name)) return by_name;
    return find(long_name);
  }

 private:
  static constexpr std::size_t kSmall = 16;
  // The first two bytes, the last and the length, weighed so that the names of each object of
  // an envelope get bits of their own (they differ there); a key as long as the input costs no
  // more than a short one.
  static std::uint64_t bit_of(std::string_view key) {
    if (key.empty()) return 1;
    const auto byte = [&](std::size_t at) {
      return std::size_t{static_cast<unsigned char>(key[at])};
    };
    const std::size_t second = key.size() > 1 ? byte(1) : 0;
    return std::uint64_t{1} << ((byte(0) + 3 * second + 4 * byte(key.size() - 1) + key.size()) &
                                63);
  }

  // bit_of each key, made once.
  std::uint64_t mask() const {
    if (mask_ == 0) mask_ = make_mask();
    return mask_;
  }
  std::uint64_t make_mask() const;
  // The member named `name` by a walk past every member (member_index); the cursor moves past it.
  const Value* walk(std::string_view name) const;

  const Value& object_;
  const bool small_;
  mutable std::uint64_t mask_ = 0;        // bit_of each key; 0 until made (never 0 after)
  mutable rapidjson::SizeType next_ = 0;  // the member after the last one found
};
inline const Value* member(const Members& object, std::string_view name) {
  return object.find(name);
}
inline const Value* member(const Members& object, std::string_view name,
                           std::string_view long_name) {
  return object.find(name, long_name);
}

// Each reader names the object it reads a member of (`path`), or the value it reads.
absl::Status read_string(const Members& object, std::string_view name, std::string& out,
                         const JsonPath& path);
absl::Status read_int64(const Members& object, std::string_view name, std::int64_t& out,
                        const JsonPath& path, bool required = false);
// An ISO-8601 string, or integer microseconds within +/-292 years of 1970.
absl::Status read_time(const Members& object, std::string_view name, TimePoint& out,
                       const JsonPath& path, std::string_view long_name = {});
// A hop duration: a .NET TimeSpan string ("00:00:01.5000000") or integer microseconds.
absl::Status read_duration(const Value& value, std::optional<std::chrono::microseconds>& out,
                           const JsonPath& path);
absl::StatusOr<Uuid> read_uuid_value(const Value& value, const JsonPath& path);
// A string member by its short or long name; absent or null leaves `out` as it is.
absl::Status read_text(const Members& object, std::string_view name, std::string_view long_name,
                       std::string& out, const JsonPath& path);

// A hop's `sc` applied to `base` (an empty scope when nullptr): the hop's scope
// (scope_delta_read.cpp).
absl::Status read_scope(const Value& sc, MessageHop& hop, const JsonPath& path,
                        const SecurityScope* base);
absl::Status read_hop(const Value& json, MessageHop& hop, const JsonPath& path,
                      ScopeFold& fold);  // hop_json.cpp
absl::Status read_record(const Value& json, ReceptorInvocationRecord& record, const JsonPath& path);

// Receptor invocation records and the members Whizbang .NET added ("sid", "sseq", "cbid",
// "cbseq", "tgt", "sto", "pri"), in envelope_json_dotnet.cpp.
void write_records(Writer& writer, const Envelope& envelope);
void write_dotnet_members(Writer& writer, const DotNetEnvelopeMembers& members);
// Reads "ri" (this runtime's earlier records) then "rin" (.NET's name, now written here), at most
// `max_records` of them.
absl::Status read_records(const Members& document, Envelope& envelope, std::size_t max_records);
absl::Status read_dotnet_members(const Members& document, DotNetEnvelopeMembers& members);

}  // namespace whizbang::envelope_json
