// The journal's part of the soak's account: "<effect> <order> <pid>" per firing of a receptor with
// an effect outside the stores (crash_restart/journal.hpp). Every order of the run must show each
// effect; more than once only where a killed process fired it (it died between the effect and
// its commit, so the handling ran again).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "order_ledger.hpp"

namespace soak {

// What is wrong (empty: every effect once per order). `repeats` counts the firings repeated by
// killed processes (allowed).
std::vector<std::string> journal_findings(const std::filesystem::path& journal,
                                          const OrderLedger& ledger, const std::set<pid_t>& killed,
                                          int& repeats);

}  // namespace soak
