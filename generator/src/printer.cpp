#include "printer.hpp"

#include <cstdio>
#include <cstdlib>

namespace whizgen {

void Printer::print(std::string_view text, const Vars& vars) {
  if (text.size() > 1 && text.front() == '\n') text.remove_prefix(1);
  // The indentation before a raw string's closing delimiter is not part of the template.
  if (const std::size_t last_newline = text.rfind('\n');
      last_newline != std::string_view::npos &&
      text.find_first_not_of(" \t", last_newline + 1) == std::string_view::npos) {
    text = text.substr(0, last_newline + 1);
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$') {
      out_.push_back(text[i]);
      continue;
    }
    const std::size_t end = text.find('$', i + 1);
    if (end == std::string_view::npos) {
      std::fprintf(stderr, "whizbang-gen: internal error: unterminated $ in template\n");
      std::abort();
    }
    const std::string_view name = text.substr(i + 1, end - i - 1);
    i = end;
    if (name.empty()) {
      out_.push_back('$');
      continue;
    }
    auto it = vars.find(name);
    if (it == vars.end()) {
      std::fprintf(stderr, "whizbang-gen: internal error: no template variable '%.*s'\n",
                   static_cast<int>(name.size()), name.data());
      std::abort();
    }
    out_ += it->second;
  }
}

}  // namespace whizgen
