// The services' own data (docs/guide/17-your-data.md), kept next to the store's tables and
// written by their receptors through whizbang::SqlSession, in the handlings' transactions: sales
// keeps its orders, the customer's account and loyalty points; fulfilment its stock and its
// shipments. After every kill, broker crash and partition the harness checks them exact: no
// effect lost, none applied twice.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "crash_restart/opening_balances.hpp"
#include "whizbang/store/work_store.hpp"

namespace crash_restart {

// Creates `service`'s tables and their opening rows, once (a process that restarts finds them).
absl::Status create_own_tables(whizbang::WorkStore& store, const std::string& service);

// Throws (failing the handling) when `result` is an error: receptors fail by throwing, and a
// StatusOr's own exception keeps the status code (a transient database error stays one).
template <class T>
T checked(absl::StatusOr<T> result) {
  return std::move(result).value();
}

}  // namespace crash_restart
