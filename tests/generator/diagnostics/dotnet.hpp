// .NET identity diagnostics: WHIZ014 names a Whizbang .NET service could not use, WHIZ009 a
// non-literal argument, WHIZ003 a dotnet_name where no codec reads it.
#pragma once

#include <string>

#include <whizbang/attributes.hpp>

namespace diag {

struct [[whizbang::dotnet_type("Shop.Contracts.NoAssembly")]] NoAssembly : whizbang::Event {  // expected-error WHIZ014
  std::string id;
};

struct [[whizbang::dotnet_type("Shop.Contracts.Versioned, Shop.Contracts, Version=1.0.0.0")]] Versioned  // expected-error WHIZ014
    : whizbang::Event {
  std::string id;
};

struct [[whizbang::dotnet_type("NoNamespace, Shop.Contracts")]] NoNamespace : whizbang::Event {  // expected-error WHIZ014
  std::string id;
};

struct [[whizbang::dotnet_type("Shop.Contracts.Box`1, Shop.Contracts")]] Generic : whizbang::Event {  // expected-error WHIZ014
  std::string id;
};

struct [[whizbang::dotnet_type("Shop.Contracts.Bad-Name, Shop.Contracts")]] BadName : whizbang::Event {  // expected-error WHIZ014
  std::string id;
};

struct [[whizbang::dotnet_type("")]] Empty : whizbang::Event {  // expected-error WHIZ009
  std::string id;
};

struct [[whizbang::wire_name("shop.Disagrees")]]  // expected-error WHIZ014
[[whizbang::dotnet_type("Shop.Contracts.Disagrees, Shop.Contracts")]] Disagrees : whizbang::Event {
  std::string id;
};

struct [[whizbang::dotnet_type("Shop.Contracts.Twice, Shop.Contracts")]] Twice : whizbang::Event {  // expected-error WHIZ014
  std::string order_id;
  std::string orderId;
};

struct [[whizbang::dotnet_type("Shop.Contracts.BadMember, Shop.Contracts")]] BadMember : whizbang::Event {
  [[whizbang::dotnet_name("Order Id")]] std::string order_id;  // expected-error WHIZ014
};

// Not a message, not held by one: no codec reads its members.
struct Unused {
  [[whizbang::dotnet_name("Value")]] std::string value;  // expected-error WHIZ003
};

[[whizbang::dotnet_name("Function")]] void function();  // expected-error WHIZ003

}  // namespace diag
