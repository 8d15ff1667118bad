#include "printer.hpp"

#include <cstdio>
#include <cstdlib>

namespace whizgen {

void Printer::put(char c) {
  if (c == '\n') {
    out_.push_back(c);
    at_line_start_ = true;
    return;
  }
  if (at_line_start_) {
    out_.append(static_cast<std::size_t>(indent_), ' ');
    at_line_start_ = false;
  }
  out_.push_back(c);
}

void Printer::print(std::string_view text, const Vars& vars) {
  if (text.size() > 1 && text.front() == '\n') text.remove_prefix(1);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$') {
      put(text[i]);
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
      put('$');
      continue;
    }
    auto it = vars.find(name);
    if (it == vars.end()) {
      std::fprintf(stderr, "whizbang-gen: internal error: no template variable '%.*s'\n",
                   static_cast<int>(name.size()), name.data());
      std::abort();
    }
    for (char c : it->second) put(c);
  }
}

}  // namespace whizgen
