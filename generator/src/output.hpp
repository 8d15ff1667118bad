// Output: formatting, write-only-when-changed, and the depfile.
#pragma once

#include <string>
#include <vector>

namespace whizgen {

// Formats C++ with the Whizbang style (Google base, 100 columns), independent of any
// .clang-format near the output so the bytes depend only on the input.
std::string format_cpp(const std::string& code, const std::string& file_name);

// Writes `content` to `path` unless the file already holds exactly these bytes (keeps the mtime
// so Ninja's restat skips dependants). Writes through a temporary file and rename.
bool write_if_changed(const std::string& path, const std::string& content);

// A Make-style depfile: `<target>: <dep> <dep> ...` with spaces escaped.
std::string depfile_text(const std::string& target, const std::vector<std::string>& dependencies);

}  // namespace whizgen
