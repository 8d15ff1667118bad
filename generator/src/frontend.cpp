#include "frontend.hpp"

#include <algorithm>
#include <memory>
#include <regex>

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/FileManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Tooling/Tooling.h"
#include "diagnostics.hpp"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"

namespace whizgen {
namespace {

// Translates Clang diagnostics into WHIZ codes; see frontend.hpp.
class TranslatingConsumer : public clang::DiagnosticConsumer {
 public:
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic& info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    llvm::SmallString<256> text;
    info.FormatDiagnostic(text);
    const std::string message(text.str());
    const bool has_location = info.getLocation().isValid() && info.hasSourceManager();

    if (level == clang::DiagnosticsEngine::Warning && has_location &&
        message.rfind("unknown attribute '", 0) == 0) {
      const clang::SourceManager& sm = info.getSourceManager();
      const char* spelled = sm.getCharacterData(info.getLocation());
      if (std::string_view(spelled).substr(0, 10) == "whizbang::") {
        const std::string name = message.substr(19, message.find('\'', 19) - 19);
        Diagnostics::instance().report(
            sm, info.getLocation(), Code::UnknownAttribute,
            "unknown attribute 'whizbang::" + name +
                "' (known: fire_at, once_across_services, idempotent, default_routing, wire_name, "
                "dotnet_type, dotnet_name, version, upcaster)");
      }
      return;
    }
    if (level < clang::DiagnosticsEngine::Error) return;

    static const std::regex kNoMember("no member named '(\\w+)' in '(whizbang::\\w+)'");
    std::smatch match;
    if (has_location && std::regex_search(message, match, kNoMember)) {
      const std::string enumerator = match[1];
      const std::string enum_name = match[2];
      const clang::SourceManager& sm = info.getSourceManager();
      if (enum_name == "whizbang::Stage") {
        Diagnostics::instance().report(sm, info.getLocation(), Code::UnknownStage,
                                       "unknown stage 'whizbang::Stage::" + enumerator + "'");
        return;
      }
      if (enum_name == "whizbang::DispatchModes" || enum_name == "whizbang::OnReplay") {
        Diagnostics::instance().report(
            sm, info.getLocation(), Code::BadAttributeArgument,
            "unknown enumerator '" + enum_name + "::" + enumerator + "'");
        return;
      }
    }
    hard_errors_ = true;
    std::string line;
    if (has_location) {
      const clang::PresumedLoc loc = info.getSourceManager().getPresumedLoc(
          info.getSourceManager().getFileLoc(info.getLocation()));
      if (loc.isValid()) {
        line = std::string(loc.getFilename()) + ":" + std::to_string(loc.getLine()) + ":" +
               std::to_string(loc.getColumn()) + ": ";
      }
    }
    Diagnostics::instance().report_raw(line + "error: " + std::string(code_id(Code::ParseError)) +
                                       " " + message);
  }

  bool hard_errors() const { return hard_errors_; }

 private:
  bool hard_errors_ = false;
};

class Consumer : public clang::ASTConsumer {
 public:
  Consumer(const std::function<void(clang::ASTContext&)>& on_ast, const TranslatingConsumer& diags,
           std::string umbrella, std::vector<std::string>* dependencies)
      : on_ast_(on_ast),
        diags_(diags),
        umbrella_(std::move(umbrella)),
        dependencies_(dependencies) {}

  void HandleTranslationUnit(clang::ASTContext& context) override {
    if (dependencies_ != nullptr) {
      const clang::SourceManager& sm = context.getSourceManager();
      for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it) {
        const std::string name(it->first.getName());
        if (name == umbrella_) continue;
        // Canonical paths: Ninja cannot match "gcc/12/../../../../include/..." spellings.
        llvm::SmallString<256> real;
        if (llvm::sys::fs::real_path(name, real)) {
          real = name;
          llvm::sys::path::remove_dots(real, /*remove_dot_dot=*/true);
        }
        dependencies_->push_back(std::string(real.str()));
      }
      std::sort(dependencies_->begin(), dependencies_->end());
      dependencies_->erase(std::unique(dependencies_->begin(), dependencies_->end()),
                           dependencies_->end());
    }
    if (!diags_.hard_errors()) on_ast_(context);
  }

 private:
  const std::function<void(clang::ASTContext&)>& on_ast_;
  const TranslatingConsumer& diags_;
  std::string umbrella_;
  std::vector<std::string>* dependencies_;
};

class Action : public clang::ASTFrontendAction {
 public:
  Action(const std::function<void(clang::ASTContext&)>& on_ast, const TranslatingConsumer& diags,
         std::string umbrella, std::vector<std::string>* dependencies)
      : on_ast_(on_ast),
        diags_(diags),
        umbrella_(std::move(umbrella)),
        dependencies_(dependencies) {}

 protected:
  bool BeginSourceFileAction(clang::CompilerInstance& ci) override {
    ci.getFrontendOpts().SkipFunctionBodies = true;
    return true;
  }
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance&,
                                                        llvm::StringRef) override {
    return std::make_unique<Consumer>(on_ast_, diags_, umbrella_, dependencies_);
  }

 private:
  const std::function<void(clang::ASTContext&)>& on_ast_;
  const TranslatingConsumer& diags_;
  std::string umbrella_;
  std::vector<std::string>* dependencies_;
};

}  // namespace

bool parse_headers(const FrontendInput& input,
                   const std::function<void(clang::ASTContext&)>& on_ast,
                   std::vector<std::string>* dependencies) {
  std::string umbrella;
  for (const std::string& header : input.headers) umbrella += "#include \"" + header + "\"\n";

  auto overlay =
      llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  overlay->pushOverlay(memory);
  memory->addFile(input.umbrella_path, 0, llvm::MemoryBuffer::getMemBufferCopy(umbrella));
  auto files = llvm::makeIntrusiveRefCnt<clang::FileManager>(clang::FileSystemOptions(), overlay);

  // -fno-caret-diagnostics also silences the "N errors generated" summary.
  // argv[0] locates the GCC installation (libstdc++) the way clang-19 itself does: use the
  // clang binary next to the resource dir (<prefix>/lib/clang/19 -> <prefix>/bin/clang).
  std::string driver = "whizbang-gen";
  if (!input.resource_dir.empty()) {
    llvm::SmallString<256> clang_path(input.resource_dir);
    for (int i = 0; i < 3; ++i) llvm::sys::path::remove_filename(clang_path);
    llvm::sys::path::append(clang_path, "bin", "clang");
    if (llvm::sys::fs::exists(clang_path)) driver = std::string(clang_path.str());
  }
  std::vector<std::string> args = {driver, "-fsyntax-only", "-fno-caret-diagnostics", "-x", "c++"};
  if (!input.resource_dir.empty()) {
    args.push_back("-resource-dir");
    args.push_back(input.resource_dir);
  }
  args.insert(args.end(), input.clang_args.begin(), input.clang_args.end());
  args.push_back(input.umbrella_path);

  TranslatingConsumer diags;
  clang::tooling::ToolInvocation invocation(
      args, std::make_unique<Action>(on_ast, diags, input.umbrella_path, dependencies),
      files.get());
  invocation.setDiagnosticConsumer(&diags);
  const bool ran = invocation.run();
  return ran && !diags.hard_errors() && Diagnostics::instance().error_count() == 0;
}

}  // namespace whizgen
