#include "whizbang/internal/json_member_text.hpp"

#include <array>
#include <cstring>

namespace whizbang::internal {
namespace {

// What a byte means to the scanner outside strings.
enum class Byte : unsigned char { Plain, Quote, Open, Close, Separator };

constexpr std::array<Byte, 256> kBytes = [] {
  std::array<Byte, 256> bytes{};
  bytes['"'] = Byte::Quote;
  bytes['{'] = bytes['['] = Byte::Open;
  bytes['}'] = bytes[']'] = Byte::Close;
  for (unsigned char c : {',', ':', ' ', '\t', '\n', '\r'}) bytes[c] = Byte::Separator;
  return bytes;
}();

Byte kind(char c) { return kBytes[static_cast<unsigned char>(c)]; }

// A cursor over well-formed JSON text; every step checks the end, so other text only ends early.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  std::size_t at() const { return at_; }
  bool done() const { return at_ >= text_.size(); }
  char peek() const { return done() ? '\0' : text_[at_]; }
  void advance() { ++at_; }

  void skip_whitespace() {
    while (!done() &&
           (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r')) {
      ++at_;
    }
  }

  // At a '"': past the closing quote. Escaped characters are skipped whole, so an escaped quote
  // does not end the string.
  bool skip_string() {
    ++at_;
    while (!done()) {
      const void* stop = std::memchr(text_.data() + at_, '"', text_.size() - at_);
      if (stop == nullptr) break;
      const std::size_t quote =
          static_cast<std::size_t>(static_cast<const char*>(stop) - text_.data());
      std::size_t backslashes = 0;
      while (quote - backslashes > at_ && text_[quote - backslashes - 1] == '\\') ++backslashes;
      at_ = quote + 1;
      if (backslashes % 2 == 0) return true;
    }
    at_ = text_.size();
    return false;
  }

  // Past one value: a string, an object or array with everything inside it, or a literal.
  bool skip_value() {
    const Byte first = kind(peek());
    if (first == Byte::Quote) return skip_string();
    if (first == Byte::Open) {
      std::size_t depth = 0;
      while (!done()) {
        switch (kind(text_[at_])) {
          case Byte::Quote:
            if (!skip_string()) return false;
            continue;
          case Byte::Open:
            ++depth;
            break;
          case Byte::Close:
            if (--depth == 0) {
              ++at_;
              return true;
            }
            break;
          case Byte::Plain:
          case Byte::Separator:
            break;
        }
        ++at_;
      }
      return false;
    }
    const std::size_t start = at_;
    while (!done() && kind(text_[at_]) == Byte::Plain) ++at_;
    return at_ > start;
  }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
};

}  // namespace

bool top_level_member_texts(std::string_view json, std::span<const std::string_view> keys,
                            std::span<std::optional<std::string_view>> texts) {
  for (std::optional<std::string_view>& text : texts) text.reset();
  Scanner scan(json);
  scan.skip_whitespace();
  if (scan.peek() != '{') return false;
  scan.advance();
  scan.skip_whitespace();
  if (scan.peek() == '}') return true;
  while (true) {
    if (scan.peek() != '"') return false;
    const std::size_t key_start = scan.at() + 1;
    if (!scan.skip_string()) return false;
    const std::string_view key = json.substr(key_start, scan.at() - 1 - key_start);
    if (key.find('\\') != std::string_view::npos) return false;
    scan.skip_whitespace();
    if (scan.peek() != ':') return false;
    scan.advance();
    scan.skip_whitespace();
    const std::size_t value_start = scan.at();
    if (!scan.skip_value()) return false;
    for (std::size_t i = 0; i < keys.size() && i < texts.size(); ++i) {
      if (keys[i] == key) texts[i] = json.substr(value_start, scan.at() - value_start);
    }
    scan.skip_whitespace();
    if (scan.peek() == '}') return true;
    if (scan.peek() != ',') return false;
    scan.advance();
    scan.skip_whitespace();
  }
}

}  // namespace whizbang::internal
