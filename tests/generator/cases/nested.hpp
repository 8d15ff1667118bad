// Message types nested in a struct: the wire name joins the nested type with '+', as .NET names
// nested types, so the namespace (and the command inbox, the routing key's first words) is the
// enclosing namespace. A shared nested type names itself with '+' in its dotnet_type.
#pragma once

#include <string>

#include <whizbang/attributes.hpp>

namespace shop {

struct Orders {
  struct Place : whizbang::Command {
    std::string order_id;
  };
  struct Placed : whizbang::Event {
    std::string order_id;
  };
  struct Lines {
    struct Added : whizbang::Event {
      std::string sku;
    };
  };
};

struct Billing {
  struct [[whizbang::dotnet_type("Shop.Billing+Charge, Shop.Contracts")]] Charge
      : whizbang::Command {
    std::string order_id;
  };
};

class PlaceReceptor : public whizbang::Receptor<Orders::Place, Orders::Placed> {
 public:
  Orders::Placed handle(const Orders::Place& command);
};

}  // namespace shop
