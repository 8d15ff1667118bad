// Message types shared with Whizbang .NET: the wire name is the .NET full name, the codec carries
// each member's C# property name (PascalCase, or [[whizbang::dotnet_name]]), and the traits pass
// the .NET type, which selects the .NET encoding.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <whizbang/attributes.hpp>

namespace shared {

struct Line {
  std::string sku;
  int quantity = 0;
};

struct [[whizbang::dotnet_type("Shop.Contracts.OrderPlaced,  Shop.Contracts")]] OrderPlaced
    : whizbang::Event {
  std::string order_id;
  std::vector<Line> order_lines;
  std::chrono::system_clock::time_point placed_at;
  [[whizbang::dotnet_name("TrackingURL")]] std::string tracking_url;
};

struct Audited : whizbang::Event {
  Line line;
};

}  // namespace shared
