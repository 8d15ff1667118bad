#include "cli/text_table.hpp"

#include <algorithm>
#include <ostream>

#include "whizbang/observability/printable.hpp"

namespace whizbang::cli {

void TextTable::add(std::vector<std::string> row) {
  row.resize(std::max(row.size(), header_.size()));
  for (std::string& cell : row) cell = whizbang::printable(cell);
  rows_.push_back(std::move(row));
}

void TextTable::print(std::ostream& out, const std::string& indent) const {
  std::vector<std::size_t> widths(header_.size(), 0);
  for (std::size_t column = 0; column < header_.size(); ++column) {
    widths[column] = header_[column].size();
    for (const auto& row : rows_) widths[column] = std::max(widths[column], row[column].size());
  }
  const auto print_row = [&](const std::vector<std::string>& row) {
    std::string line = indent;
    for (std::size_t column = 0; column < header_.size(); ++column) {
      line += row[column];
      if (column + 1 < header_.size())
        line += std::string(widths[column] - row[column].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  };
  print_row(header_);
  for (const auto& row : rows_) print_row(row);
}

}  // namespace whizbang::cli
