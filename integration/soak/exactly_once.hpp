// The soak's end-of-run account: every order sent was handled exactly once by each receptor, in
// the services' own tables (written in the handlings' transactions: crash_restart/own_tables.hpp),
// in sales' order book (a perspective that counts the events it applied) and in the journal of
// side effects outside every store (a repeat only from a process killed mid-handling).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "order_ledger.hpp"
#include "pg_probe.hpp"

namespace soak {

struct RunSchemas {
  std::string sales;
  std::string fulfilment;
};

// What is wrong (empty: every order once everywhere). `repeats` counts the journal's side effects
// repeated by killed processes (allowed: they died between the effect and its commit).
std::vector<std::string> exactly_once_findings(PgProbe& probe, const RunSchemas& schemas,
                                               const OrderLedger& ledger,
                                               const std::filesystem::path& journal,
                                               const std::set<pid_t>& killed, int& repeats);

}  // namespace soak
