#include "whizbang/ids/derived_identity.hpp"

#include <algorithm>
#include <charconv>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "absl/status/status.h"
#include "fmt/format.h"
#include "whizbang/internal/sha256.hpp"

namespace whizbang {
namespace {

// Derivation runs on every cascaded emission, so the canonical texts
// (docs/guide/05-emission-identity.md) are written into a stack buffer with plain pointer writes:
// no allocation and no per-character capacity checks on the hot path. Only texts longer than the
// buffer (very long names) fall back to the heap.
constexpr std::size_t kStackCapacity = 256;
constexpr std::size_t kUuidHexSize = 32;
constexpr std::size_t kMaxNumberSize = 20;  // "-9223372036854775808"

// Writes `bytes` as 32 lowercase hex digits (the uuid "N" form, as Uuid::to_n_string), the largest
// part of a canonical text. SSE2 (every x86-64) converts all 16 bytes at once; elsewhere, a nibble
// at a time.
void write_hex(const Uuid::Bytes& bytes, char* out) {
#if defined(__SSE2__)
  const __m128i in = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes.data()));
  const __m128i low_nibble = _mm_set1_epi8(0x0F);
  const auto digits = [](__m128i nibbles) {  // 0..9 -> '0'..'9', 10..15 -> 'a'..'f'
    const __m128i letters = _mm_cmpgt_epi8(nibbles, _mm_set1_epi8(9));
    return _mm_add_epi8(_mm_add_epi8(nibbles, _mm_set1_epi8('0')),
                        _mm_and_si128(letters, _mm_set1_epi8('a' - '0' - 10)));
  };
  const __m128i high = digits(_mm_and_si128(_mm_srli_epi16(in, 4), low_nibble));
  const __m128i low = digits(_mm_and_si128(in, low_nibble));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_unpacklo_epi8(high, low));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16), _mm_unpackhi_epi8(high, low));
#else
  constexpr char kDigits[] = "0123456789abcdef";
  for (std::uint8_t b : bytes) {
    *out++ = kDigits[b >> 4];
    *out++ = kDigits[b & 0x0F];
  }
#endif
}

// Appends to storage the caller sized with one of the *_capacity() functions below.
class TextWriter {
 public:
  explicit TextWriter(char* storage) : begin_(storage), end_(storage) {}

  TextWriter& text(std::string_view s) {
    end_ = std::copy(s.begin(), s.end(), end_);
    return *this;
  }
  TextWriter& newline() {
    *end_++ = '\n';
    return *this;
  }
  TextWriter& line(std::string_view s) { return text(s).newline(); }
  TextWriter& hex(const Uuid& id) {
    write_hex(id.bytes(), end_);
    end_ += kUuidHexSize;
    return *this;
  }
  TextWriter& number(std::int64_t value) {
    end_ = std::to_chars(end_, end_ + kMaxNumberSize, value).ptr;
    return *this;
  }

  std::size_t size() const { return static_cast<std::size_t>(end_ - begin_); }
  std::string_view view() const { return {begin_, size()}; }

 private:
  char* begin_;
  char* end_;
};

std::size_t emission_capacity(std::string_view service, std::string_view handler,
                              std::string_view emitted_type) {
  return EmissionIdentity::kCanonicalPrefix.size() + kUuidHexSize + service.size() +
         handler.size() + emitted_type.size() + kMaxNumberSize + 5;  // 5 newlines
}

void write_emission(TextWriter& out, const Uuid& source, std::string_view service,
                    std::string_view handler, std::string_view emitted_type, std::int64_t ordinal) {
  out.line(EmissionIdentity::kCanonicalPrefix).hex(source).newline();
  out.line(service).line(handler).line(emitted_type).number(ordinal);
}

std::size_t composite_child_capacity(std::string_view child_type) {
  return CompositeChildIdentity::kCanonicalPrefix.size() + kUuidHexSize + kMaxNumberSize +
         child_type.size() + 3;  // 3 newlines
}

void write_composite_child(TextWriter& out, const Uuid& composite, std::int64_t ordinal,
                           std::string_view child_type) {
  out.line(CompositeChildIdentity::kCanonicalPrefix).hex(composite).newline();
  out.number(ordinal).newline().text(child_type);
}

// Writes the canonical text with `write` (at most `capacity` bytes) and lays out the id.
template <typename Write>
absl::StatusOr<MessageId> derive_from(const Uuid& source, std::int64_t ordinal,
                                      std::size_t capacity, Write write) {
  if (capacity <= kStackCapacity) {
    char stack[kStackCapacity];
    TextWriter out(stack);
    write(out);
    return DerivedIdentity::from_canonical(source, ordinal, out.view());
  }
  std::string heap(capacity, '\0');
  TextWriter out(heap.data());
  write(out);
  return DerivedIdentity::from_canonical(source, ordinal, out.view());
}

template <typename Write>
std::string canonical_from(std::size_t capacity, Write write) {
  std::string text(capacity, '\0');
  TextWriter out(text.data());
  write(out);
  text.resize(out.size());
  return text;
}

absl::Status check_inputs(const Uuid& source, std::int64_t ordinal) {
  if (source.is_nil()) {
    return absl::InvalidArgumentError("derived id needs a source id; got the nil uuid");
  }
  if (ordinal < 0) {
    return absl::InvalidArgumentError(
        fmt::format("derived id ordinal must be >= 0; got {}", ordinal));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<MessageId> DerivedIdentity::from_canonical(const Uuid& source, std::int64_t ordinal,
                                                          std::string_view canonical) {
  if (absl::Status status = check_inputs(source, ordinal); !status.ok()) return status;
  const internal::Sha256Digest digest = internal::sha256(canonical);
  const auto field = static_cast<std::uint32_t>(std::min(ordinal, kMaxOrdinalField));

  Uuid::Bytes b = source.bytes();
  b[6] = static_cast<std::uint8_t>(0x70 | (b[6] & 0x0F));
  b[8] = static_cast<std::uint8_t>(0x80 | (b[8] & 0x3F));
  b[10] = static_cast<std::uint8_t>(field >> 4);
  b[11] = static_cast<std::uint8_t>(((field & 0x0F) << 4) | (digest[0] & 0x0F));
  std::copy(digest.begin() + 1, digest.begin() + 5, b.begin() + 12);
  return MessageId::from_trusted(Uuid(b));
}

absl::StatusOr<MessageId> EmissionIdentity::derive(const Uuid& source, std::string_view service,
                                                   std::string_view handler,
                                                   std::string_view emitted_type,
                                                   std::int64_t ordinal) {
  return derive_from(source, ordinal, emission_capacity(service, handler, emitted_type),
                     [&](TextWriter& out) {
                       write_emission(out, source, service, handler, emitted_type, ordinal);
                     });
}

std::string EmissionIdentity::canonical(const Uuid& source, std::string_view service,
                                        std::string_view handler, std::string_view emitted_type,
                                        std::int64_t ordinal) {
  return canonical_from(emission_capacity(service, handler, emitted_type), [&](TextWriter& out) {
    write_emission(out, source, service, handler, emitted_type, ordinal);
  });
}

absl::StatusOr<MessageId> CompositeChildIdentity::derive(const Uuid& composite,
                                                         std::int64_t ordinal,
                                                         std::string_view child_type) {
  return derive_from(
      composite, ordinal, composite_child_capacity(child_type),
      [&](TextWriter& out) { write_composite_child(out, composite, ordinal, child_type); });
}

MessageId DispatchKeyIdentity::derive(std::string_view service, std::string_view type,
                                      std::string_view key) {
  const std::string text = canonical(service, type, key);
  const internal::Sha256Digest digest = internal::sha256(text);
  Uuid::Bytes source{};
  std::copy(digest.begin() + 16, digest.end(), source.begin());
  // The source is never nil (its version nibble is forced) and the ordinal is 0: no error.
  source[6] = static_cast<std::uint8_t>(0x70 | (source[6] & 0x0F));
  return *DerivedIdentity::from_canonical(Uuid(source), 0, text);
}

std::string DispatchKeyIdentity::canonical(std::string_view service, std::string_view type,
                                           std::string_view key) {
  return fmt::format("{}\n{}\n{}\n{}", kCanonicalPrefix, service, type, key);
}

std::string CompositeChildIdentity::canonical(const Uuid& composite, std::int64_t ordinal,
                                              std::string_view child_type) {
  return canonical_from(composite_child_capacity(child_type), [&](TextWriter& out) {
    write_composite_child(out, composite, ordinal, child_type);
  });
}

}  // namespace whizbang
