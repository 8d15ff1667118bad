// whizbang-gen: reads annotated C++ headers, writes the target's registry.
//
// Flow: options -> flags file -> parse the umbrella TU (frontend) -> scan the AST into a Model
// (scanner) -> emit three files (emit_*) -> format -> write the ones whose bytes changed, plus
// whizbang_tables.json and the depfile. Any WHIZ error: exit 1 and write nothing.
#include <iostream>
#include <map>

#include "attributes.hpp"
#include "diagnostics.hpp"
#include "emit.hpp"
#include "frontend.hpp"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "options.hpp"
#include "output.hpp"
#include "scanner.hpp"

namespace whizgen {
namespace {

std::string absolute(const std::string& path) {
  llvm::SmallString<256> buffer(path);
  llvm::sys::fs::make_absolute(buffer);
  llvm::sys::path::remove_dots(buffer, /*remove_dot_dot=*/true);
  return std::string(buffer.str());
}

std::string identifier(const std::string& name) {
  // Prefixed up front, not by insert(0, ...): g++ 12 warns falsely (-Wrestrict) on that at -O3.
  const bool needs_prefix = name.empty() || std::isdigit(static_cast<unsigned char>(name[0]));
  std::string out = needs_prefix ? "_" : "";
  for (char c : name) out.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return out;
}

// The shortest spelling of `header` relative to an include directory of `args`.
std::string include_spelling(const std::string& header, const std::vector<std::string>& args) {
  std::string best = header;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string dir;
    for (const std::string flag : {"-I", "-isystem", "-iquote"}) {
      if (args[i] == flag && i + 1 < args.size())
        dir = args[i + 1];
      else if (args[i].rfind(flag, 0) == 0 && args[i].size() > flag.size())
        dir = args[i].substr(flag.size());
      if (!dir.empty()) break;
    }
    if (dir.empty()) continue;
    const std::string relative = relative_to_root(header, absolute(dir));
    if (relative != header && relative.size() < best.size()) best = relative;
  }
  return best;
}

int run(const Options& options) {
  if (options.list_diagnostics) {
    for (int code = 0; code <= static_cast<int>(Code::MissingUpcaster); ++code) {
      const CodeInfo& info = code_info(static_cast<Code>(code));
      std::cout << info.id << "  " << info.summary << "\n";
    }
    return 0;
  }
  const std::string root = absolute(options.root.empty() ? "." : options.root);
  const std::string out_dir = absolute(options.out_dir);

  FrontendInput input;
  input.resource_dir = options.resource_dir;
  for (const std::string& file : options.flags_files) {
    if (!read_flags_file(file, input.clang_args)) {
      Diagnostics::instance().report_plain("cannot read flags file " + file);
      return 1;
    }
  }
  input.clang_args.insert(input.clang_args.end(), options.clang_args.begin(),
                          options.clang_args.end());
  input.umbrella_path = out_dir + "/whizbang_umbrella.cpp";

  Model model;
  model.target = options.target;
  model.namespace_name = identifier(options.target);
  for (const std::string& header : options.headers) {
    const std::string path = absolute(header);
    if (!llvm::sys::fs::exists(path)) {
      Diagnostics::instance().report_plain("header not found: " + header);
      return 1;
    }
    input.headers.push_back(path);
    model.headers.push_back(relative_to_root(path, root));
    model.header_includes.push_back(include_spelling(path, input.clang_args));
  }

  std::vector<std::string> dependencies;
  const bool parsed = parse_headers(
      input, [&](clang::ASTContext& context) { scan(context, root, model); }, &dependencies);
  if (!parsed || Diagnostics::instance().error_count() > 0) return 1;

  const std::map<std::string, std::string> files = {
      {kMessagesHeader, emit_messages_header(model)},
      {kRegistryHeader, emit_registry_header(model)},
      {kRegistrySource, emit_registry_source(model)},
  };
  if (std::error_code error = llvm::sys::fs::create_directories(out_dir)) {
    Diagnostics::instance().report_plain("cannot create " + out_dir + ": " + error.message());
    return 1;
  }
  for (const auto& [name, content] : files) {
    if (!write_if_changed(out_dir + "/" + name, format_cpp(content, name))) {
      Diagnostics::instance().report_plain("cannot write " + out_dir + "/" + name);
      return 1;
    }
  }
  if (!write_if_changed(out_dir + "/" + kTablesJson, emit_tables_json(model))) {
    Diagnostics::instance().report_plain("cannot write " + out_dir + "/" + kTablesJson);
    return 1;
  }
  if (!options.depfile.empty()) {
    const std::string target = out_dir + "/" + kMessagesHeader;
    if (!write_if_changed(options.depfile, depfile_text(target, dependencies))) {
      Diagnostics::instance().report_plain("cannot write depfile " + options.depfile);
      return 1;
    }
  }
  return 0;
}

}  // namespace
}  // namespace whizgen

int main(int argc, char** argv) {
  whizgen::link_attributes();
  const std::optional<whizgen::Options> options = whizgen::parse_options(argc, argv);
  if (!options) return 2;
  return whizgen::run(*options);
}
