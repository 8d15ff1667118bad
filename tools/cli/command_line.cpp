#include "cli/command_line.hpp"

#include <charconv>
#include <ostream>
#include <string_view>

#include "fmt/format.h"

namespace whizbang::cli {
namespace {

// The root, then each chosen subcommand: `whizbang store inspect` -> {root, store, inspect}.
std::vector<const CLI::App*> chosen_path(const CLI::App& root) {
  std::vector<const CLI::App*> path = {&root};
  while (!path.back()->get_subcommands().empty()) {
    path.push_back(path.back()->get_subcommands().front());
  }
  return path;
}

// "store inspect" for {root, store, inspect}; "" for the root alone.
std::string command_name(const std::vector<const CLI::App*>& path, std::size_t last) {
  std::string name;
  for (std::size_t i = 1; i <= last; ++i) name += (name.empty() ? "" : " ") + path[i]->get_name();
  return name;
}

// "store inspect: " before a message about that command; nothing for the root.
std::string prefix(const std::string& name) { return name.empty() ? "" : name + ": "; }

// "whizbang store inspect --help"
std::string help_command(const std::string& name) {
  return name.empty() ? "whizbang --help" : fmt::format("whizbang {} --help", name);
}

std::string join(const std::vector<std::string>& words) {
  std::string joined;
  for (const std::string& word : words) joined += (joined.empty() ? "" : ", ") + word;
  return joined;
}

std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options()) {
    if (option->nonpositional()) names.push_back(option->get_name());
  }
  return names;
}

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* command : app.get_subcommands(nullptr)) names.push_back(command->get_name());
  return names;
}

// One line for the first word no command took, naming what would have fitted, so a typo is
// fixed without opening --help. Empty when every word was taken.
std::string extras_message(const std::vector<const CLI::App*>& path) {
  for (std::size_t depth = 0; depth < path.size(); ++depth) {
    const CLI::App& app = *path[depth];
    const std::vector<std::string> extras = app.remaining();
    if (extras.empty()) continue;
    const std::string name = command_name(path, depth);
    for (const std::string& extra : extras) {
      if (extra.size() < 2 || extra[0] != '-') continue;
      return fmt::format("{}unknown option {} (options: {})", prefix(name),
                         extra.substr(0, extra.find('=')), join(option_names(app)));
    }
    const bool is_group = !app.get_subcommands(nullptr).empty();
    if (is_group && depth + 1 == path.size()) {
      return fmt::format("unknown {}command '{}' (commands: {})", name.empty() ? "" : name + " ",
                         extras[0], join(subcommand_names(app)));
    }
    return fmt::format("{}unexpected argument '{}' (try: {})", prefix(name), extras[0],
                       help_command(name));
  }
  return "";
}

// CLI11's wording for the two mismatches a user meets, said as the rest of the tool says things;
// anything else as CLI11 says it.
std::string reworded(const CLI::ParseError& error) {
  const std::string message = error.what();
  const auto ends_with = [&](std::string_view tail) {
    return message.size() > tail.size() &&
           message.compare(message.size() - tail.size(), tail.size(), tail) == 0;
  };
  // "--limit: 1 required N missing"
  if (const auto colon = message.find(": "); colon != std::string::npos && ends_with(" missing")) {
    return message.substr(0, colon) + " needs a value";
  }
  // "all was given a disallowed flag override" (CLI11 drops the dashes)
  constexpr std::string_view kOverride = " was given a disallowed flag override";
  if (ends_with(kOverride)) {
    return fmt::format("--{} takes no value", message.substr(0, message.size() - kOverride.size()));
  }
  return message;
}

}  // namespace

CommandTree::CommandTree(std::string description, std::string footer)
    : root_(std::move(description), "whizbang") {
  root_.footer(std::move(footer));
  // Unknown words are collected, not thrown, so the report can name what would have fitted and
  // can put them before a "missing" option they may explain.
  root_.allow_extras();
  root_.require_subcommand(1);
  // --json=false and the like: a switch is given or not.
  root_.option_defaults()->disable_flag_override();
}

CLI::App* CommandTree::add_group(CLI::App& parent, const std::string& name,
                                 const std::string& description) {
  CLI::App* group = parent.add_subcommand(name, description);
  group->footer("");  // CLI11 hands the parent's down
  group->require_subcommand(1);
  return group;
}

CLI::App* CommandTree::add_command(CLI::App& parent, const std::string& name,
                                   const std::string& description, CommandRun run) {
  CLI::App* command = parent.add_subcommand(name, description);
  command->footer("");
  runs_.emplace(command, std::move(run));
  return command;
}

int CommandTree::run(const std::vector<std::string>& args, const Io& io) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 pops from the back
  std::string error;
  try {
    root_.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    io.out << root_.help();  // the chosen subcommand's help
    return kExitOk;
  } catch (const CLI::ParseError& parse_error) {
    error = reworded(parse_error);
  }
  const std::vector<const CLI::App*> path = chosen_path(root_);
  const auto chosen = runs_.find(path.back());
  if (const std::string extras = extras_message(path); !extras.empty()) {
    return usage_error(io, extras);
  }
  if (chosen == runs_.end()) {  // a group without its subcommand
    io.err << root_.help();
    return kExitUsage;
  }
  if (!error.empty()) {
    const std::string name = command_name(path, path.size() - 1);
    return usage_error(io, fmt::format("{}{} (try: {})", prefix(name), error, help_command(name)));
  }
  return chosen->second(io);
}

CLI::Validator whole_number(std::int64_t min, std::int64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        std::int64_t number = 0;
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, number);
        if (text.rfind("--", 0) == 0) return fmt::format("needs a value; got the option {}", text);
        if (text.empty() || error != std::errc() || stop != end) {
          return fmt::format("must be a whole number; got '{}'", text);
        }
        if (number < min) return fmt::format("must be >= {}; got {}", min, number);
        if (number > max) return fmt::format("must be <= {}; got {}", max, number);
        text = std::to_string(number);  // CLI11 converts with base 0: "010" would be 8
        return "";
      },
      "", "whole number");
}

}  // namespace whizbang::cli
