// Message types of the envelope decoder's fuzzer, run through whizbang_generate() so payloads
// decode with real generated codecs: every member kind the codecs handle (ids, enums, integers
// of several widths, doubles, times, optionals, vectors, maps, a nested struct), in the native
// style and in the .NET one (docs/guide/15-dotnet-services.md).
#pragma once

#include <whizbang/whizbang.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fuzz_messages {

enum class Priority : std::int32_t { Low = 0, High = 1 };

// Not a message: nested in messages of either style.
struct Line {
  std::string sku;
  std::int32_t quantity = 0;
  double unit_price = 0;
};

struct OrderPlaced : whizbang::Event {
  whizbang::Uuid order_id;
  whizbang::MessageId request_id;
  std::string customer;
  Priority priority = Priority::Low;
  std::uint16_t units = 0;
  bool gift = false;
  std::chrono::system_clock::time_point placed_at;
  std::optional<std::string> note;
  std::vector<Line> lines;
  std::map<std::string, std::int64_t> totals;
};

struct ShipOrder : whizbang::Command {
  std::string order_id;
};

// An envelope of this type from Whizbang .NET has no "t": its name travels beside it.
struct [[whizbang::dotnet_type("Fuzz.Contracts.OrderShipped, Fuzz.Contracts")]] OrderShipped
    : whizbang::Event {
  whizbang::Uuid order_id;
  std::chrono::system_clock::time_point shipped_at;
  std::optional<std::string> carrier;
  std::vector<Line> lines;
  std::map<std::string, std::string> tags;
};

}  // namespace fuzz_messages
