// Messages shared with a Whizbang .NET service ([[whizbang::dotnet_type]]) and one that is not,
// with the receptor a C++ service runs for a command .NET sends.
#pragma once

#include <whizbang/security/security_context.hpp>
#include <whizbang/whizbang.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace interop_test {

enum class OrderStatus : std::int32_t { Pending = 0, Paid = 1, Shipped = 2 };

// A nested struct: encoded in the style of the message that holds it.
struct OrderLine {
  std::string sku;
  std::int32_t quantity = 0;
  double unit_price = 0;
};

struct [[whizbang::dotnet_type("Shop.Contracts.OrderPlaced, Shop.Contracts")]] OrderPlaced
    : whizbang::Event {
  whizbang::Uuid order_id;
  std::string customer_name;
  OrderStatus status = OrderStatus::Pending;
  std::chrono::system_clock::time_point placed_at;
  std::optional<std::string> note;
  std::vector<OrderLine> lines;
  std::map<std::string, std::string> tags;
  // The C# property is "TrackingURL", which PascalCase of the member would not give.
  [[whizbang::dotnet_name("TrackingURL")]] std::string tracking_url;
};

struct [[whizbang::dotnet_type("Shop.Contracts.ShipOrder, Shop.Contracts")]] ShipOrder
    : whizbang::Command {
  whizbang::Uuid order_id;
  std::chrono::system_clock::time_point ship_by;
};

struct [[whizbang::dotnet_type(
    "Shop.Contracts.OrderShipped, Shop.Contracts")]] [[whizbang::
                                                           default_routing(
                                                               whizbang::DispatchModes::
                                                                   Outbox)]] OrderShipped
    : whizbang::Event {
  whizbang::Uuid order_id;
  std::chrono::system_clock::time_point shipped_at;
};

// Not shared with .NET: the native encoding, with the same nested struct.
struct LineAudited : whizbang::Event {
  OrderLine line;
  std::chrono::system_clock::time_point audited_at;
};

// What ShipOrderReceptor handled, for the tests.
struct ShipLog {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<ShipOrder> handled;
  // What the receptor saw as its security context, one per command handled.
  std::vector<whizbang::SecurityContext> security;

  // True once `count` commands were handled, false after `timeout` without them.
  bool wait_for(std::size_t count, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, timeout, [&] { return handled.size() >= count; });
  }
};

class ShipOrderReceptor : public whizbang::Receptor<ShipOrder, OrderShipped> {
 public:
  explicit ShipOrderReceptor(ShipLog& log) : log_(log) {}
  OrderShipped handle(const ShipOrder& command);

 private:
  ShipLog& log_;
};

}  // namespace interop_test
