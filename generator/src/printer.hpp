// Printer: a small template printer in the style of protobuf's io::Printer.
//
// Templates are raw strings that look like the output; `$name$` is replaced by vars["name"]
// (`$$` prints a dollar). Every line starts at the current indentation (indent()/outdent()),
// including the continuation lines of a multi-line substitution. A leading newline in a template
// is dropped so raw strings can start on their own line.
//
//   Printer p;
//   p.print(R"cc(
//   struct $name$ {
//   )cc", {{"name", "Foo"}});
//   p.indent();
//   p.print("int x = 0;\n");
//   p.outdent();
//   p.print("};\n");
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace whizgen {

class Printer {
 public:
  using Vars = std::map<std::string, std::string, std::less<>>;

  void print(std::string_view text, const Vars& vars = {});
  void indent() { indent_ += 2; }
  void outdent() { indent_ = indent_ >= 2 ? indent_ - 2 : 0; }
  const std::string& str() const { return out_; }

 private:
  void put(char c);

  std::string out_;
  int indent_ = 0;
  bool at_line_start_ = true;
};

}  // namespace whizgen
