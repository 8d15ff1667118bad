#include "dotnet_names.hpp"

#include <cctype>
#include <vector>

namespace whizgen {
namespace {

bool is_letter(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

std::string_view trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  while (true) {
    const std::size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

// Assembly names are file names: letters, digits, '_', '-' and '.'.
bool is_assembly_name(std::string_view name) {
  if (name.empty() || name.front() == '.' || name.back() == '.') return false;
  for (char c : name) {
    if (!is_letter(c) && !is_digit(c) && c != '_' && c != '-' && c != '.') return false;
  }
  return true;
}

// 'text', built by appending: g++ 12 warns falsely (-Wrestrict) at -O3 on "'" + std::string.
std::string quoted(std::string_view text) {
  std::string out = "'";
  out.append(text);
  out.push_back('\'');
  return out;
}

}  // namespace

bool is_csharp_identifier(std::string_view name) {
  if (name.empty() || is_digit(name.front())) return false;
  for (char c : name) {
    if (!is_letter(c) && !is_digit(c) && c != '_') return false;
  }
  return true;
}

std::optional<std::string> dotnet_type_problem(std::string_view type) {
  const std::vector<std::string_view> parts = split(type, ',');
  if (parts.size() != 2) {
    if (parts.size() > 2) {
      return quoted(type) +
             " has more than a type and an assembly: write \"Namespace.Type, Assembly\" "
             "(.NET ignores Version, Culture and PublicKeyToken when it resolves the type)";
    }
    return quoted(type) +
           " names no assembly: write \"Namespace.Type, Assembly\", as .NET's "
           "Type.AssemblyQualifiedName starts";
  }
  const std::string_view full_name = trim(parts[0]);
  const std::string_view assembly = trim(parts[1]);
  if (full_name.find('`') != std::string_view::npos) {
    return quoted(full_name) + " is a generic type: share a non-generic type";
  }
  const std::vector<std::string_view> namespace_and_type = split(full_name, '.');
  if (namespace_and_type.size() < 2) {
    return quoted(full_name) +
           " has no namespace: the RabbitMQ exchange of a .NET type is its lower-cased namespace";
  }
  for (std::string_view segment : namespace_and_type) {
    for (std::string_view identifier : split(segment, '+')) {
      if (!is_csharp_identifier(identifier)) {
        return quoted(full_name) + " is not a .NET type name (" + quoted(identifier) +
               " is not a C# identifier)";
      }
    }
  }
  if (!is_assembly_name(assembly)) {
    return quoted(assembly) + " is not an assembly name";
  }
  return std::nullopt;
}

std::string dotnet_full_name(std::string_view type) {
  return std::string(trim(type.substr(0, type.find(','))));
}

std::string normalized_dotnet_type(std::string_view type) {
  const std::size_t comma = type.find(',');
  if (comma == std::string_view::npos) return std::string(trim(type));
  return std::string(trim(type.substr(0, comma))) + ", " +
         std::string(trim(type.substr(comma + 1)));
}

std::string pascal_case(std::string_view name) {
  std::string out;
  bool word_start = true;
  for (char c : name) {
    if (c == '_') {
      word_start = true;
      continue;
    }
    out.push_back(word_start ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c);
    word_start = false;
  }
  return out.empty() ? std::string(name) : out;
}

std::string nested_wire_name(std::string_view cpp_name, std::size_t depth) {
  // The last `depth` "::" separate nested types; template arguments hold none (a message type
  // is not a template). Joined piece by piece: g++ 12 at -O3 warns falsely (-Wrestrict) on
  // std::string::replace here.
  std::vector<std::size_t> separators;  // from the last one back
  for (std::size_t at = cpp_name.size(); depth > 0; --depth) {
    const std::size_t separator = cpp_name.rfind("::", at);
    if (separator == std::string_view::npos || separator == 0) break;
    separators.push_back(separator);
    at = separator - 1;
  }
  std::string name;
  name.reserve(cpp_name.size());
  std::size_t from = 0;
  for (auto it = separators.rbegin(); it != separators.rend(); ++it) {
    name.append(cpp_name.substr(from, *it - from));
    name.push_back('+');
    from = *it + 2;
  }
  name.append(cpp_name.substr(from));
  return name;
}

}  // namespace whizgen
