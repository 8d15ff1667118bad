// The receptors' side effects, outside every store: each firing appends "<effect> <key> <pid>" to
// the file named by WHIZBANG_CRASH_JOURNAL (nothing when unset). A SIGKILLed process's lines
// stay (the kernel has them), so the harness can tell an effect repeated because its process
// died mid-handling from one fired twice by live processes.
#pragma once

#include <array>
#include <string_view>

namespace crash_restart::journal {

// Every effect the services' receptors record, once per order each (sales.cpp, fulfilment.cpp):
// what the harness and the soak count in the journal.
inline constexpr std::array<std::string_view, 5> kEffects = {
    "order-shipped", "label-printed", "order-book-placed", "order-book-shipped",
    "shipment-announced"};

void record(std::string_view effect, std::string_view key);

}  // namespace crash_restart::journal
