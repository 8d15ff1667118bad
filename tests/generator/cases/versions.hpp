// Golden case: event versions. A message at version 3 with its two older shapes and the
// upcasters between them (v1 -> v2 -> v3), one shared with .NET at version 2, and a struct the
// old shapes hold (its codec precedes theirs).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <whizbang/attributes.hpp>

namespace shop {

struct Amount {
  std::int64_t cents = 0;
  std::string currency;
};

// Version 1: a price in cents only.
struct [[whizbang::version(1)]] OrderPlacedV1 {
  std::string order_id;
  std::int64_t price = 0;
};

// Version 2: the price became an Amount.
struct [[whizbang::version(2)]] OrderPlacedV2 {
  std::string order_id;
  Amount total;
};

// Version 3 (current): a list of lines and a channel.
struct [[whizbang::version(3)]] OrderPlaced : whizbang::Event {
  std::string order_id;
  Amount total;
  std::vector<std::string> lines;
  std::string channel;
};

[[whizbang::upcaster]] OrderPlacedV2 upcast(const OrderPlacedV1& old);
[[whizbang::upcaster]] OrderPlaced upcast(const OrderPlacedV2& old);

struct [[whizbang::version(1)]] RefundedV1 {
  std::string OrderId;
};

struct [[whizbang::dotnet_type("Shop.Contracts.Refunded, Shop.Contracts")]] [[whizbang::version(
    2)]] Refunded : whizbang::Event {
  std::string order_id;
  std::string reason;
};

namespace upcasters {
[[whizbang::upcaster]] Refunded from_v1(const RefundedV1& old);
}  // namespace upcasters

}  // namespace shop
