// Span attribute keys without a copy per attribute (docs/guide/18-tracing.md).
//
// A span's attribute keys are constants (span_attributes::k..., or a literal), and a traced
// message sets about thirty of them: copying each into a std::string was a heap allocation per
// attribute on the handling's thread. SpanKey can only be made from a compile-time constant (its
// constructors are consteval), so a span may keep a view of it; AttributeKey, the key a
// SpanAttribute holds, borrows such a constant and owns anything else (a decoded key, a key built
// at run time for a resource).
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace whizbang {

// A key that outlives every span: a literal or a constexpr string_view. A key computed at run
// time does not compile here; give it to SpanAttribute as a std::string instead.
class SpanKey {
 public:
  consteval SpanKey(std::string_view text) : text_(text) {}
  consteval SpanKey(const char* text) : text_(text) {}
  constexpr std::string_view view() const { return text_; }

 private:
  std::string_view text_;
};

class AttributeKey {
 public:
  AttributeKey() = default;
  AttributeKey(SpanKey key) : borrowed_(key.view()), is_borrowed_(true) {}
  AttributeKey(std::string text) : owned_(std::move(text)) {}
  AttributeKey(std::string_view text) : owned_(text) {}
  AttributeKey(const char* text) : owned_(text) {}

  std::string_view view() const { return is_borrowed_ ? borrowed_ : std::string_view(owned_); }
  operator std::string_view() const { return view(); }

  friend bool operator==(const AttributeKey& a, const AttributeKey& b) {
    return a.view() == b.view();
  }
  friend bool operator==(const AttributeKey& a, std::string_view b) { return a.view() == b; }
  friend bool operator==(const AttributeKey& a, const char* b) { return a.view() == b; }
  friend std::ostream& operator<<(std::ostream& out, const AttributeKey& key) {
    return out << key.view();
  }

 private:
  std::string owned_;
  std::string_view borrowed_;
  bool is_borrowed_ = false;
};

}  // namespace whizbang
