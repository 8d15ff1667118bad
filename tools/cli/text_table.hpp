// TextTable: the human-readable tables of `whizbang store` and `whizbang gen explain`.
//
//   TextTable table({"VERSION", "EVENT ID", "TYPE"});
//   table.add({"1", id.to_string(), "shop.OrderCreated"});
//   table.print(io.out, "  ");   // columns padded to their widest cell, two spaces apart
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace whizbang::cli {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}

  // A row with fewer cells than the header is padded with empty cells. Control characters in
  // a cell are shown escaped (whizbang::printable()): cells hold stored text, which must not move
  // the operator's cursor or recolour the terminal.
  void add(std::vector<std::string> row);
  bool empty() const { return rows_.empty(); }
  // Prints the header and the rows, each line prefixed by `indent`; the last column is not
  // padded, so long values (payload JSON) do not push trailing spaces.
  void print(std::ostream& out, const std::string& indent) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace whizbang::cli
