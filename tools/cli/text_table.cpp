#include "cli/text_table.hpp"

#include <algorithm>
#include <ostream>

namespace whizbang::cli {

std::string printable(std::string text) {
  const auto is_control = [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7f;
  };
  if (std::none_of(text.begin(), text.end(), is_control)) return text;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size() + 8);
  for (char c : text) {
    if (!is_control(c)) {
      out.push_back(c);
      continue;
    }
    const auto byte = static_cast<unsigned char>(c);
    out += "\\x";
    out.push_back(kHex[byte >> 4]);
    out.push_back(kHex[byte & 0x0f]);
  }
  return out;
}

void TextTable::add(std::vector<std::string> row) {
  row.resize(std::max(row.size(), header_.size()));
  for (std::string& cell : row) cell = printable(std::move(cell));
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
