#include "diagnostics.hpp"

#include <array>

#include "llvm/Support/raw_ostream.h"

namespace whizgen {
namespace {

constexpr std::array<CodeInfo, 17> kCodes = {{
    {Code::ParseError, "WHIZ000", "the headers do not compile (Clang error)"},
    {Code::UnknownAttribute, "WHIZ001", "unknown whizbang:: attribute"},
    {Code::UnknownStage, "WHIZ002", "fire_at argument is not a whizbang::Stage enumerator"},
    {Code::MisplacedAttribute, "WHIZ003",
     "attribute on something that is not a receptor or message"},
    {Code::MissingHandle, "WHIZ004", "receptor without a matching handle"},
    {Code::UnsupportedField, "WHIZ005", "unsupported message field type"},
    {Code::UnsupportedResult, "WHIZ006", "unsupported receptor result shape"},
    {Code::DuplicateWireName, "WHIZ007", "duplicate wire name"},
    {Code::CommandReceptors, "WHIZ008", "command with more than one receptor"},
    {Code::BadAttributeArgument, "WHIZ009", "invalid attribute arguments"},
    {Code::BadDependency, "WHIZ010", "receptor constructor parameter cannot be resolved"},
    {Code::NotAMessage, "WHIZ011", "receptor message type is not an Event or Command"},
    {Code::PerspectiveNotEvent, "WHIZ012", "perspective apply overload for a non-event type"},
    {Code::BadPerspective, "WHIZ013", "perspective without a usable apply or with a bad model"},
    {Code::BadDotNetName, "WHIZ014", ".NET type or member name that .NET cannot resolve"},
    {Code::BadUpcaster, "WHIZ015",
     "upcaster of the wrong shape, not from version K to K+1, or a second one"},
    {Code::MissingUpcaster, "WHIZ016",
     "an older version of a message type with no upcaster path, or an old shape not upcast"},
}};

}  // namespace

const CodeInfo& code_info(Code code) { return kCodes[static_cast<std::size_t>(code)]; }
std::string_view code_id(Code code) { return code_info(code).id; }

Diagnostics& Diagnostics::instance() {
  static Diagnostics diagnostics;
  return diagnostics;
}

void Diagnostics::report(const clang::SourceManager& sm, clang::SourceLocation loc, Code code,
                         const std::string& message) {
  ++errors_;
  const clang::PresumedLoc presumed = sm.getPresumedLoc(sm.getFileLoc(loc));
  if (presumed.isValid()) {
    llvm::errs() << presumed.getFilename() << ':' << presumed.getLine() << ':'
                 << presumed.getColumn() << ": ";
  }
  llvm::errs() << "error: " << code_id(code) << ' ' << message << '\n';
}

void Diagnostics::report_plain(const std::string& message) {
  ++errors_;
  llvm::errs() << "whizbang-gen: error: " << message << '\n';
}

void Diagnostics::report_raw(const std::string& line) {
  ++errors_;
  llvm::errs() << line << '\n';
}

}  // namespace whizgen
