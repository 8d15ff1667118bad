// StaticOrOwnedString: text that either borrows storage living as long as the program (a
// generated registry's receptor ids) or owns a copy (text decoded from JSON or a database row).
// Invocation records built on the hot path borrow, so making one allocates nothing.
//
//   record.receptor_id = whizbang::StaticOrOwnedString::borrow(receptor.id);  // no copy
//   record.receptor_id = row_text;                                             // owns a copy
//   record.receptor_id == "shop::Mailer";                                      // compares text
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace whizbang {

class StaticOrOwnedString {
 public:
  StaticOrOwnedString() = default;
  StaticOrOwnedString(std::string text) : owned_(std::move(text)) {}
  StaticOrOwnedString(std::string_view text) : owned_(text) {}
  StaticOrOwnedString(const char* text) : owned_(text) {}

  // Text to refer to without copying it: it must outlive every copy of the result (static
  // storage, such as ReceptorInfo::id). Converts implicitly, so a record built in place from its
  // fields borrows with no temporary StaticOrOwnedString to move.
  struct Borrowed {
    std::string_view text;
  };
  StaticOrOwnedString(Borrowed borrowed) : borrowed_(borrowed.text), is_borrowed_(true) {}

  static StaticOrOwnedString borrow(std::string_view text) { return Borrowed{text}; }
  // Borrows in place: no temporary to move from (moving one calls std::string's out-of-line
  // move assignment, a tenth of a local publish).
  StaticOrOwnedString& operator=(Borrowed borrowed) {
    owned_.clear();
    borrowed_ = borrowed.text;
    is_borrowed_ = true;
    return *this;
  }

  std::string_view view() const { return is_borrowed_ ? borrowed_ : std::string_view(owned_); }
  operator std::string_view() const { return view(); }
  std::string str() const { return std::string(view()); }
  bool empty() const { return view().empty(); }
  std::size_t size() const { return view().size(); }

  friend bool operator==(const StaticOrOwnedString& a, const StaticOrOwnedString& b) {
    return a.view() == b.view();
  }
  friend bool operator==(const StaticOrOwnedString& a, std::string_view b) { return a.view() == b; }
  friend bool operator==(const StaticOrOwnedString& a, const std::string& b) {
    return a.view() == b;
  }
  friend bool operator==(const StaticOrOwnedString& a, const char* b) { return a.view() == b; }
  friend std::ostream& operator<<(std::ostream& out, const StaticOrOwnedString& text) {
    return out << text.view();
  }

 private:
  std::string owned_;
  std::string_view borrowed_;
  bool is_borrowed_ = false;
};

}  // namespace whizbang
