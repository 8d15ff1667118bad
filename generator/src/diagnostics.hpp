// Diagnostics: the numbered WHIZ codes and the clang-style reporter.
//
// Every user error is `file:line:col: error: WHIZ0NN message` on stderr. The table below is the
// single source of truth; docs/diagnostics.md mirrors it with an example per code.
#pragma once

#include <string>
#include <string_view>

#include "clang/Basic/SourceLocation.h"
#include "clang/Basic/SourceManager.h"

namespace whizgen {

enum class Code {
  ParseError = 0,            // WHIZ000 the C++ did not compile (Clang's own error)
  UnknownAttribute = 1,      // WHIZ001 [[whizbang::typo]]
  UnknownStage = 2,          // WHIZ002 fire_at argument is not a whizbang::Stage enumerator
  MisplacedAttribute = 3,    // WHIZ003 attribute on something that is not a receptor/message
  MissingHandle = 4,         // WHIZ004 receptor without `Result handle(const Message&)`
  UnsupportedField = 5,      // WHIZ005 message field type the codec cannot encode
  UnsupportedResult = 6,     // WHIZ006 result shape the cascade walk cannot handle
  DuplicateWireName = 7,     // WHIZ007 two message types with one wire name
  CommandReceptors = 8,      // WHIZ008 a command with more than one receptor
  BadAttributeArgument = 9,  // WHIZ009 wrong arguments / bare spelling without whizbang::
  BadDependency = 10,        // WHIZ010 receptor constructor parameter cannot be resolved
  NotAMessage = 11,          // WHIZ011 Receptor<T> where T is not an Event or Command
  PerspectiveNotEvent = 12,  // WHIZ012 a perspective apply overload whose event is not an Event
  BadPerspective = 13,       // WHIZ013 perspective without a usable apply, or a non-struct model
  BadDotNetName = 14,        // WHIZ014 dotnet_type/dotnet_name a Whizbang .NET service cannot use
  BadUpcaster = 15,          // WHIZ015 an upcaster of the wrong shape, versions, or a duplicate
  MissingUpcaster = 16,      // WHIZ016 a version with no upcast path, an old shape not upcast
};

struct CodeInfo {
  Code code;
  std::string_view id;       // "WHIZ003"
  std::string_view summary;  // one line, for --list-diagnostics
};

const CodeInfo& code_info(Code code);
std::string_view code_id(Code code);

// Process-wide error reporter (the generator is one run per process).
class Diagnostics {
 public:
  static Diagnostics& instance();

  void report(const clang::SourceManager& sm, clang::SourceLocation loc, Code code,
              const std::string& message);
  // For errors without a source location (I/O, command line).
  void report_plain(const std::string& message);
  // Already-formatted clang diagnostic text (pass-through of parse errors).
  void report_raw(const std::string& line);

  int error_count() const { return errors_; }

 private:
  int errors_ = 0;
};

}  // namespace whizgen
