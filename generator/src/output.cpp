#include "output.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "clang/Format/Format.h"
#include "clang/Tooling/Core/Replacement.h"

namespace whizgen {

std::string format_cpp(const std::string& code, const std::string& file_name) {
  clang::format::FormatStyle style =
      clang::format::getGoogleStyle(clang::format::FormatStyle::LK_Cpp);
  style.ColumnLimit = 100;
  style.DerivePointerAlignment = false;
  style.PointerAlignment = clang::format::FormatStyle::PAS_Left;
  style.IncludeStyle.IncludeBlocks = clang::tooling::IncludeStyle::IBS_Preserve;
  style.SortIncludes = clang::format::FormatStyle::SI_Never;
  const clang::tooling::Range range(0, static_cast<unsigned>(code.size()));
  const clang::tooling::Replacements replacements =
      clang::format::reformat(style, code, {range}, file_name);
  llvm::Expected<std::string> formatted = clang::tooling::applyAllReplacements(code, replacements);
  if (!formatted) {
    llvm::consumeError(formatted.takeError());
    return code;
  }
  return *formatted;
}

bool write_if_changed(const std::string& path, const std::string& content) {
  {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::ostringstream existing;
      existing << in.rdbuf();
      if (existing.str() == content) return true;
    }
  }
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out << content;
    if (!out.good()) return false;
  }
  return std::rename(temp.c_str(), path.c_str()) == 0;
}

namespace {
std::string escape(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#') out.push_back('\\');
    if (c == '$') out.push_back('$');
    out.push_back(c);
  }
  return out;
}
}  // namespace

std::string depfile_text(const std::string& target, const std::vector<std::string>& dependencies) {
  std::string text = escape(target) + ":";
  for (const std::string& dep : dependencies) text += " \\\n  " + escape(dep);
  return text + "\n";
}

}  // namespace whizgen
