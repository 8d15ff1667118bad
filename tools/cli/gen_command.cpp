// whizbang gen explain: the receptor and message tables of a whizbang_generate() output dir, read
// from the whizbang_tables.json whizbang-gen writes next to the generated C++.
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <sstream>

#include "cli/command_line.hpp"
#include "cli/json_output.hpp"
#include "cli/text_table.hpp"
#include "fmt/format.h"
#include "rapidjson/document.h"
#include "whizbang/internal/bounded_json.hpp"

namespace whizbang::cli {
namespace {

namespace fs = std::filesystem;

struct ExplainOptions {
  std::string dir;
  bool json = false;
};

constexpr const char* kTablesFile = "whizbang_tables.json";
constexpr int kTablesFormat = 1;

absl::StatusOr<std::string> read_tables_file(const std::string& dir) {
  std::error_code error;
  const fs::file_status status = fs::status(dir, error);
  if (status.type() == fs::file_type::not_found) {
    return absl::NotFoundError(fmt::format("'{}': no such directory", dir));
  }
  if (error) return absl::InvalidArgumentError(fmt::format("'{}': {}", dir, error.message()));
  if (status.type() != fs::file_type::directory) {
    return absl::InvalidArgumentError(
        fmt::format("'{}' is not a directory (expected a whizbang_generate output dir)", dir));
  }
  const fs::path tables = fs::path(dir) / kTablesFile;
  if (!fs::is_regular_file(tables, error)) {
    if (fs::exists(fs::path(dir) / "whizbang_registry.cpp", error)) {
      return absl::FailedPreconditionError(
          fmt::format("'{}' has whizbang_registry.cpp but no {}: rebuild with a current "
                      "whizbang-gen",
                      dir, kTablesFile));
    }
    return absl::NotFoundError(
        fmt::format("'{}' holds no generated files (no {}): pass a whizbang_generate output dir",
                    dir, kTablesFile));
  }
  std::ifstream in(tables, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) return absl::InvalidArgumentError(fmt::format("cannot read '{}'", tables.string()));
  return text.str();
}

bool has_string(const rapidjson::Value& object, const char* key) {
  return object.HasMember(key) && object[key].IsString();
}

std::string text(const rapidjson::Value& object, const char* key) {
  return has_string(object, key)
             ? std::string(object[key].GetString(), object[key].GetStringLength())
             : std::string();
}

std::string optional_text(const rapidjson::Value& object, const char* key) {
  return has_string(object, key) ? text(object, key) : "-";
}

bool flag(const rapidjson::Value& object, const char* key) {
  return object.HasMember(key) && object[key].IsBool() && object[key].GetBool();
}

std::int64_t number(const rapidjson::Value& object, const char* key) {
  return object.HasMember(key) && object[key].IsInt64() ? object[key].GetInt64() : 0;
}

std::string source(const rapidjson::Value& object) {
  if (!object.HasMember("source") || !object["source"].IsObject()) return "-";
  const rapidjson::Value& location = object["source"];
  return fmt::format("{}:{}", text(location, "file"), number(location, "line"));
}

std::string joined(const rapidjson::Value& object, const char* key,
                   std::string (*item)(const rapidjson::Value&)) {
  if (!object.HasMember(key) || !object[key].IsArray()) return "";
  std::string out;
  for (const rapidjson::Value& value : object[key].GetArray()) {
    if (!out.empty()) out += ", ";
    out += item(value);
  }
  return out;
}

std::string string_item(const rapidjson::Value& value) {
  return value.IsString() ? std::string(value.GetString(), value.GetStringLength()) : "?";
}

std::string dependency_item(const rapidjson::Value& value) {
  if (!value.IsObject()) return "?";
  const std::string kind = text(value, "kind");
  return text(value, "type") + (kind == "pointer" ? "*" : kind == "reference" ? "&" : "");
}

// The document's shape, checked once so printing can rely on it.
absl::Status validate(const rapidjson::Document& tables, const std::string& path) {
  if (!tables.IsObject())
    return absl::InvalidArgumentError(fmt::format("'{}' is not an object", path));
  if (!tables.HasMember("format") || !tables["format"].IsInt() ||
      tables["format"].GetInt() != kTablesFormat) {
    return absl::FailedPreconditionError(
        fmt::format("'{}' is not tables format {} (rebuild with a matching whizbang-gen)", path,
                    kTablesFormat));
  }
  for (const char* table : {"messages", "receptors"}) {
    if (!tables.HasMember(table) || !tables[table].IsArray()) {
      return absl::InvalidArgumentError(fmt::format("'{}' has no '{}' array", path, table));
    }
    for (const rapidjson::Value& row : tables[table].GetArray()) {
      if (!row.IsObject()) {
        return absl::InvalidArgumentError(
            fmt::format("'{}': a '{}' entry is not an object", path, table));
      }
    }
  }
  return absl::OkStatus();
}

void print_text(const Io& io, const rapidjson::Document& tables) {
  io.out << "target: " << text(tables, "target") << " (" << text(tables, "namespace")
         << "), registry ABI " << number(tables, "registry_abi") << ", from "
         << joined(tables, "headers", string_item) << "\n";

  const auto& messages = tables["messages"].GetArray();
  io.out << "\nmessages: " << messages.Size() << "\n";
  TextTable message_table(
      {"#", "MESSAGE", "WIRE NAME", "KIND", "RECEPTORS", "ROUTING", "FIELDS", "SOURCE"});
  for (const rapidjson::Value& message : messages) {
    const std::int64_t first = number(message, "first_receptor");
    const std::int64_t count = number(message, "receptor_count");
    const std::string receptors = count == 0   ? "-"
                                  : count == 1 ? fmt::format("#{}", first)
                                               : fmt::format("#{}..#{}", first, first + count - 1);
    message_table.add({std::to_string(number(message, "index")), text(message, "name"),
                       text(message, "wire_name"), text(message, "kind"), receptors,
                       optional_text(message, "default_routing"),
                       std::to_string(message.HasMember("fields") && message["fields"].IsArray()
                                          ? message["fields"].Size()
                                          : 0),
                       source(message)});
  }
  if (!message_table.empty()) message_table.print(io.out, "  ");

  const auto& receptors = tables["receptors"].GetArray();
  io.out << "\nreceptors: " << receptors.Size() << "\n";
  TextTable receptor_table({"#", "RECEPTOR", "MESSAGE", "STAGES", "FLAGS", "ROUTING", "RESPONSE",
                            "DEPENDENCIES", "SOURCE"});
  for (const rapidjson::Value& receptor : receptors) {
    std::string flags;
    for (const char* name : {"idempotent", "always_fire", "once_across_services"}) {
      if (!flag(receptor, name)) continue;
      if (!flags.empty()) flags += ",";
      flags += name;
    }
    std::string stages = joined(receptor, "stages", string_item);
    if (flag(receptor, "default_stages")) stages += " (default)";
    const std::string response = text(receptor, "response_type");
    const std::string dependencies = joined(receptor, "dependencies", dependency_item);
    receptor_table.add({std::to_string(number(receptor, "index")), text(receptor, "id"),
                        text(receptor, "message"), stages, flags.empty() ? "-" : flags,
                        optional_text(receptor, "default_routing"),
                        response.empty() ? "void" : response,
                        dependencies.empty() ? "-" : dependencies, source(receptor)});
  }
  if (!receptor_table.empty()) receptor_table.print(io.out, "  ");
}

int gen_explain(const ExplainOptions& options, const Io& io) {
  const std::string& dir = options.dir;
  absl::StatusOr<std::string> content = read_tables_file(dir);
  if (!content.ok()) return status_error(io, content.status());
  const std::string path = (fs::path(dir) / kTablesFile).string();
  rapidjson::Document tables;
  // Bounded: a damaged or hand-edited file must not overflow the stack.
  if (const internal::BoundedParseResult parsed = internal::parse_bounded(*content, tables);
      parsed.IsError()) {
    return usage_error(io, fmt::format("'{}' is not valid JSON: {}", path,
                                       internal::describe_parse_error(parsed)));
  }
  if (absl::Status valid = validate(tables, path); !valid.ok()) return status_error(io, valid);
  if (options.json) {
    JsonOutput json;
    tables.Accept(json.writer());
    io.out << json.str();
  } else {
    print_text(io, tables);
  }
  return kExitOk;
}

}  // namespace

void add_gen_commands(CommandTree& tree) {
  CLI::App* gen =
      tree.add_group(tree.root(), "gen", "the receptor and message tables whizbang-gen generated");
  auto explain = std::make_shared<ExplainOptions>();
  CLI::App* explain_command =
      tree.add_command(*gen, "explain", "the receptor and message tables generated into TARGET_DIR",
                       [explain](const Io& io) { return gen_explain(*explain, io); });
  explain_command
      ->add_option("TARGET_DIR", explain->dir,
                   "a whizbang_generate() OUTPUT_DIR, by default "
                   "<build>/.../whizbang_generated/<target>")
      ->type_name("")
      ->required();
  explain_command->add_flag("--json", explain->json, "print the tables as a JSON document");
  const std::string footer = fmt::format(
      "explain shows ids, messages, stages, idempotent / always_fire / once_across_services,\n"
      "routing, dependencies and source lines, read from TARGET_DIR/{}. A missing\n"
      "directory, a directory without generated files or a malformed tables file prints one line\n"
      "and exits 2.",
      kTablesFile);
  gen->footer(footer);
  explain_command->footer(footer);
}

}  // namespace whizbang::cli
