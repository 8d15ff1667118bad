#include "whizbang/ids/derived_identity.hpp"

#include <algorithm>
#include <charconv>
#include <string>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "internal/sha256.hpp"

namespace whizbang {
namespace {

// Reused per thread: derivation runs on every cascaded emission.
std::string& canonical_buffer() {
  thread_local std::string buffer = [] {
    std::string s;
    s.reserve(256);
    return s;
  }();
  buffer.clear();
  return buffer;
}

void append_number(std::string& out, std::int64_t value) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof(digits), value).ptr;
  out.append(digits, end);
}

void append_line(std::string& out, std::string_view text) {
  out.append(text);
  out.push_back('\n');
}

void append_emission(std::string& out, const Uuid& source, std::string_view service,
                     std::string_view handler, std::string_view emitted_type,
                     std::int64_t ordinal) {
  append_line(out, EmissionIdentity::kCanonicalPrefix);
  source.append_n_string(out);
  out.push_back('\n');
  append_line(out, service);
  append_line(out, handler);
  append_line(out, emitted_type);
  append_number(out, ordinal);
}

void append_composite_child(std::string& out, const Uuid& composite, std::int64_t ordinal,
                            std::string_view child_type) {
  append_line(out, CompositeChildIdentity::kCanonicalPrefix);
  composite.append_n_string(out);
  out.push_back('\n');
  append_number(out, ordinal);
  out.push_back('\n');
  out.append(child_type);
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
  std::string& buffer = canonical_buffer();
  append_emission(buffer, source, service, handler, emitted_type, ordinal);
  return DerivedIdentity::from_canonical(source, ordinal, buffer);
}

std::string EmissionIdentity::canonical(const Uuid& source, std::string_view service,
                                        std::string_view handler, std::string_view emitted_type,
                                        std::int64_t ordinal) {
  std::string out;
  append_emission(out, source, service, handler, emitted_type, ordinal);
  return out;
}

absl::StatusOr<MessageId> CompositeChildIdentity::derive(const Uuid& composite,
                                                         std::int64_t ordinal,
                                                         std::string_view child_type) {
  std::string& buffer = canonical_buffer();
  append_composite_child(buffer, composite, ordinal, child_type);
  return DerivedIdentity::from_canonical(composite, ordinal, buffer);
}

std::string CompositeChildIdentity::canonical(const Uuid& composite, std::int64_t ordinal,
                                              std::string_view child_type) {
  std::string out;
  append_composite_child(out, composite, ordinal, child_type);
  return out;
}

}  // namespace whizbang
