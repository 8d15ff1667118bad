// BinaryArray: a one-dimensional PostgreSQL array in the binary wire format (array_recv), so a
// batch of rows travels as one parameter per column of one statement (unnest) and the server
// copies its elements instead of parsing and unescaping text (postgres_bench: the text form's
// array_in took a quarter of a 1000-row insert's server time).
//
// The format: dimensions (1), has-nulls flag, element type; per dimension its length and lower
// bound (1); then each element as a big-endian int32 byte length (-1: NULL) and its bytes in the
// element type's own binary form.
#pragma once

#include <libpq-fe.h>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "whizbang/ids/uuid.hpp"

namespace whizbang::postgres {

// The types of elements this store sends (pg_type OIDs, fixed since PostgreSQL's first catalogs).
enum class ElementType : Oid { Bool = 16, Int8 = 20, Text = 25, Uuid = 2950 };

// The array type of an element type: what a binary parameter is declared as.
constexpr Oid array_type_of(ElementType element) {
  switch (element) {
    case ElementType::Bool:
      return 1000;
    case ElementType::Int8:
      return 1016;
    case ElementType::Text:
      return 1009;
    case ElementType::Uuid:
      return 2951;
  }
  return 0;
}

class BinaryArray {
 public:
  explicit BinaryArray(ElementType element) : element_(element) {
    put_int32(1);  // dimensions
    put_int32(0);  // has nulls: set by finish()
    put_int32(static_cast<std::int32_t>(element));
    put_int32(0);  // length: set by finish()
    put_int32(1);  // lower bound
  }

  ElementType element() const { return element_; }

  void add(std::string_view text) {
    put_int32(static_cast<std::int32_t>(text.size()));
    bytes_.append(text);
    ++count_;
  }
  void add(const Uuid& id) {
    put_int32(16);
    bytes_.append(reinterpret_cast<const char*>(id.bytes().data()), id.bytes().size());
    ++count_;
  }
  void add(bool value) {
    put_int32(1);
    bytes_.push_back(value ? '\1' : '\0');
    ++count_;
  }
  void add(std::int64_t value) {
    put_int32(8);
    put_big_endian(static_cast<std::uint64_t>(value), 8);
    ++count_;
  }
  // An element or NULL.
  template <class T>
  void add(const std::optional<T>& value) {
    if (value) {
      add(*value);
    } else {
      add_null();
    }
  }
  void add_null() {
    put_int32(-1);
    has_nulls_ = true;
    ++count_;
  }

  // The array's bytes, its header completed.
  std::string finish() && {
    overwrite_int32(kHasNullsOffset, has_nulls_ ? 1 : 0);
    overwrite_int32(kLengthOffset, count_);
    return std::move(bytes_);
  }

 private:
  static constexpr std::size_t kHasNullsOffset = 4;
  static constexpr std::size_t kLengthOffset = 12;

  void put_int32(std::int32_t value) { put_big_endian(static_cast<std::uint32_t>(value), 4); }
  void put_big_endian(std::uint64_t value, int size) {
    for (int shift = (size - 1) * 8; shift >= 0; shift -= 8) {
      bytes_.push_back(static_cast<char>((value >> shift) & 0xff));
    }
  }
  void overwrite_int32(std::size_t offset, std::int32_t value) {
    const auto bits = static_cast<std::uint32_t>(value);
    for (int i = 0; i < 4; ++i) {
      bytes_[offset + static_cast<std::size_t>(i)] =
          static_cast<char>((bits >> (24 - 8 * i)) & 0xff);
    }
  }

  ElementType element_;
  std::string bytes_;
  std::int32_t count_ = 0;
  bool has_nulls_ = false;
};

}  // namespace whizbang::postgres
