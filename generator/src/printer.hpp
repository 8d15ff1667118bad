// Printer: a small template printer in the style of protobuf's io::Printer.
//
// Templates are raw strings that look like the output; `$name$` is replaced by vars["name"]
// (`$$` prints a dollar). A leading newline in a template is dropped, and so are the spaces that
// end it after its last newline, so raw strings can start and end on their own lines. Layout
// belongs to clang-format, which every generated C++ file goes through (output.cpp): templates
// need not be indented the way the output is.
//
//   Printer p;
//   p.print(R"cc(
//     struct $name$ {
//       int x = 0;
//     };
//   )cc", {{"name", "Foo"}});
//   p.str();  // "struct Foo {\n  int x = 0;\n};\n" up to indentation
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace whizgen {

class Printer {
 public:
  using Vars = std::map<std::string, std::string, std::less<>>;

  // Aborts (an internal error of the generator) on an unterminated `$` or an unknown variable.
  void print(std::string_view text, const Vars& vars = {});
  const std::string& str() const { return out_; }

 private:
  std::string out_;
};

}  // namespace whizgen
