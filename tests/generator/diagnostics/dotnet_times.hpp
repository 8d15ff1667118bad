// .NET time members: a duration of any unit but .NET's 100 ns tick (whizbang::TimeSpan) has no
// .NET counterpart and is refused (WHIZ005); the four .NET time types are accepted.
#pragma once

#include <chrono>

#include <whizbang/attributes.hpp>
#include <whizbang/message/dotnet_date_time.hpp>

namespace diag {

struct [[whizbang::dotnet_type("Clinic.Contracts.Times, Clinic.Contracts")]] Times : whizbang::Event {
  whizbang::DateTime at;
  whizbang::DateOnly day;
  whizbang::TimeOnly starts;
  whizbang::TimeSpan length{};
  std::chrono::milliseconds timeout{};  // expected-error WHIZ005
  std::chrono::duration<int, std::ratio<1, 10000000>> narrow_ticks{};  // expected-error WHIZ005
};

}  // namespace diag
