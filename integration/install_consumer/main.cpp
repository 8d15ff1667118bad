#include <iostream>

#include <whizbang/derived_identity.hpp>
#include <whizbang/whizbang.hpp>

namespace shop {
struct OrderCreated : whizbang::Event {};
}  // namespace shop

int main() {
  const whizbang::MessageId inbound = whizbang::MessageId::mint();
  const auto first = whizbang::EmissionIdentity::derive(inbound.uuid(), "orders", "", "shop::OrderCreated", 0);
  const auto again = whizbang::EmissionIdentity::derive(inbound.uuid(), "orders", "", "shop::OrderCreated", 0);
  if (!first.ok() || !again.ok() || *first != *again) {
    std::cerr << "consumer: derived ids differ\n";
    return 1;
  }
  const auto routed = whizbang::Route::Both(shop::OrderCreated{});
  if (routed.mode != whizbang::DispatchModes::Both) return 1;
  std::cout << "consumer: ok " << first->to_string() << "\n";
  return 0;
}
