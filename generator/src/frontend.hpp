// Front end: parses the target's headers as one umbrella translation unit with Clang.
//
// The umbrella (`#include "<abs header>"` per header) lives in an in-memory file system; function
// bodies are skipped. Clang's own diagnostics are translated: unknown `whizbang::` attributes
// become WHIZ001, unknown Stage enumerators WHIZ002, unknown DispatchModes/OnReplay enumerators
// WHIZ009; other errors are passed through as WHIZ000. Warnings are not ours and are dropped.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
}

namespace whizgen {

struct FrontendInput {
  std::vector<std::string> headers;     // absolute paths
  std::vector<std::string> clang_args;  // -I/-D/-std... (never a g++ command line)
  std::string resource_dir;             // Clang's builtin headers
  std::string umbrella_path;            // virtual file name of the umbrella TU
};

// Runs `on_ast` on the parsed AST when the headers parsed without hard errors. `dependencies`
// receives every file the parse opened (sorted, for the depfile). Returns false on errors.
bool parse_headers(const FrontendInput& input,
                   const std::function<void(clang::ASTContext&)>& on_ast,
                   std::vector<std::string>* dependencies);

}  // namespace whizgen
