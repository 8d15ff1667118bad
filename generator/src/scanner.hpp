// Scanner: AST -> Model. Finds message types, receptors and perspectives, reads and validates the
// [[whizbang::...]] annotations, checks handle/constructor/field/result shapes and reports
// WHIZ errors. Declarations in system headers and in namespace whizbang are not scanned.
#pragma once

#include <string>

#include "model.hpp"

namespace clang {
class ASTContext;
}

namespace whizgen {

// Fills model.messages, model.structs/codec order, model.receptors and model.perspectives.
void scan(clang::ASTContext& context, const std::string& root, Model& model);

// `path` relative to `root` when it lies under it, unchanged otherwise.
std::string relative_to_root(const std::string& path, const std::string& root);

}  // namespace whizgen
