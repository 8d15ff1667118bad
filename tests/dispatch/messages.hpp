// Message types for the dispatcher tests. Parsed by whizbang-gen through whizbang_generate().
#pragma once

#include <string>
#include <vector>

#include <whizbang/whizbang.hpp>

namespace dispatch_test {

struct OrderResult {  // not a message: only returned
  std::string order_id;
  bool operator==(const OrderResult&) const = default;
};

struct OrderCreated : whizbang::Event {
  std::string order_id;
};
struct OrderShipped : whizbang::Event {
  std::string order_id;
};
struct InventoryUpdated : whizbang::Event {
  std::string product_id;
  int delta = 0;
};
struct AuditLogged : whizbang::Event {
  std::string action;
};
// The type's own route beats every wrapper and the receptor's default.
struct [[whizbang::default_routing(whizbang::DispatchModes::LocalNoPersist)]] CacheWarmed
    : whizbang::Event {
  std::string key;
};
// Nobody handles it locally: only outbox rows show it was cascaded.
struct ExternalNoticed : whizbang::Event {
  std::string note;
};

struct SendInvoice : whizbang::Command {
  std::string order_id;
};
struct RemoteCommand : whizbang::Command {  // no receptor in this service
  std::string payload;
};

}  // namespace dispatch_test
