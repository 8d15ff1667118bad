// .NET's DateTime, DateOnly, TimeOnly and TimeSpan as payload members: a shared message carries
// each (alone, optional, in a vector, in a nested struct), the tables name their C# types, and
// GeneratorDotNetTimeTests compiles this header through whizbang_generate() and round-trips it.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <whizbang/attributes.hpp>
#include <whizbang/message/dotnet_date_time.hpp>

namespace clinic {

struct Slot {
  whizbang::TimeOnly starts;
  whizbang::TimeSpan length{};
};

struct [[whizbang::dotnet_type(
    "Clinic.Contracts.AppointmentBooked, Clinic.Contracts")]] AppointmentBooked : whizbang::Event {
  whizbang::DateTime booked_at;
  whizbang::DateOnly day;
  whizbang::TimeOnly starts;
  whizbang::TimeSpan length{};
  std::optional<whizbang::DateTime> cancelled_at;
  std::vector<Slot> alternatives;
  std::map<std::string, whizbang::TimeSpan> buffers;
  std::chrono::system_clock::time_point received_at;
};

// Not shared with .NET: the same texts, under the C++ member names.
struct AppointmentAudited : whizbang::Event {
  whizbang::DateOnly day;
  std::chrono::duration<long long, std::ratio<1, 10000000>> length{};
  Slot slot;
};

}  // namespace clinic
