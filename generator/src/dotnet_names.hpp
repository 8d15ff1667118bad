// Names a Whizbang .NET service resolves: the type named by [[whizbang::dotnet_type]] and the
// C# property names of payload members (docs/guide/15-dotnet-services.md).
// Plain string functions, with no Clang types, so they are tested on their own.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace whizgen {

// What is wrong with a dotnet_type argument, or nullopt when it is usable. The accepted form is
// "Namespace.Type, Assembly": a namespace (the RabbitMQ exchange is its lower-cased form), dotted
// C# identifiers ('+' before a nested type) and an assembly name, nothing else. Version,
// Culture and PublicKeyToken are refused: .NET strips them before its lookup, so they would only
// mislead a reader.
std::optional<std::string> dotnet_type_problem(std::string_view type);

// "Shop.Contracts.OrderCreated" of "Shop.Contracts.OrderCreated, Shop.Contracts".
std::string dotnet_full_name(std::string_view type);
// "Shop.Contracts.OrderCreated, Shop.Contracts" however the argument was spaced.
std::string normalized_dotnet_type(std::string_view type);

// A C++ member name as a C# property: each '_'-separated word capitalised and joined
// ("order_id" -> "OrderId", "customerName" -> "CustomerName", "sku2" -> "Sku2").
std::string pascal_case(std::string_view name);

bool is_csharp_identifier(std::string_view name);

// The wire name of a C++ type nested in `depth` classes or structs: .NET's spelling, '+' before
// each nested type ("shop::Orders::Placed", 1 -> "shop::Orders+Placed"), so its namespace (the
// part before the last "::") is the enclosing namespace, as .NET's is for a nested type.
std::string nested_wire_name(std::string_view cpp_name, std::size_t depth);

}  // namespace whizgen
