#include "exactly_once.hpp"

#include <utility>

#include "journal_check.hpp"

#include "crash_restart/opening_balances.hpp"

namespace soak {
namespace {

// Each query must answer `expected`; a finding names the query otherwise.
void expect(PgProbe& probe, const std::string& sql, std::int64_t expected, const std::string& what,
            std::vector<std::string>& findings) {
  absl::StatusOr<std::int64_t> value = probe.scalar(sql);
  if (!value.ok()) {
    findings.push_back(what + ": " + std::string(value.status().message()));
  } else if (*value != expected) {
    findings.push_back(what + ": " + std::to_string(*value) + ", expected " +
                       std::to_string(expected));
  }
}

void check_stores(PgProbe& probe, const RunSchemas& schemas, const OrderLedger& ledger,
                  std::vector<std::string>& findings) {
  const std::int64_t orders = ledger.sent();
  const std::int64_t quantity = ledger.quantity_sent();
  const std::string& sales = schemas.sales;
  const std::string& fulfilment = schemas.fulfilment;
  for (const std::string* schema : {&sales, &fulfilment}) {
    for (const char* owed :
         {"wh_outbox WHERE processed_at IS NULL", "wh_inbox WHERE processed_at IS NULL",
          "wh_outbox WHERE (status & 32768) <> 0", "wh_inbox WHERE (status & 32768) <> 0",
          "wh_perspective_events", "wh_lifecycle_completions", "wh_detached_work"}) {
      expect(probe, "SELECT count(*) FROM " + *schema + "." + owed, 0, *schema + "." + owed,
             findings);
    }
  }
  // The services' own tables: one row per order, the running totals exact.
  expect(probe, "SELECT count(*) FROM " + sales + ".orders", orders, "orders placed", findings);
  expect(probe, "SELECT balance FROM " + sales + ".accounts WHERE id = 'customer'",
         crash_restart::kOpeningBalance - quantity, "the customer's balance (debited per order)",
         findings);
  expect(probe, "SELECT points FROM " + sales + ".loyalty WHERE id = 'customer'", quantity,
         "loyalty points (earned per shipment)", findings);
  expect(probe, "SELECT count(*) FROM " + fulfilment + ".shipments", orders, "shipments", findings);
  expect(probe, "SELECT count FROM " + fulfilment + ".stock WHERE sku = 'widget'",
         crash_restart::kOpeningStock - quantity, "stock (taken per order)", findings);
  // The order book counts the events it applied: each order placed once and shipped once.
  const std::string book = sales + ".wh_perspective_models";
  expect(probe, "SELECT count(*) FROM " + book, orders, "order book entries", findings);
  expect(probe,
         "SELECT count(*) FROM " + book +
             " WHERE (model_data::jsonb->>'placed')::int = 1 AND "
             "(model_data::jsonb->>'shipped')::int = 1",
         orders, "order book entries placed once and shipped once", findings);
  expect(probe,
         "SELECT coalesce(sum((model_data::jsonb->>'quantity_shipped')::bigint), 0) FROM " + book,
         quantity, "quantity shipped in the order book", findings);
}

}  // namespace

std::vector<std::string> exactly_once_findings(PgProbe& probe, const RunSchemas& schemas,
                                               const OrderLedger& ledger,
                                               const std::filesystem::path& journal,
                                               const std::set<pid_t>& killed, int& repeats) {
  std::vector<std::string> findings;
  check_stores(probe, schemas, ledger, findings);
  for (std::string& finding : journal_findings(journal, ledger, killed, repeats)) {
    findings.push_back(std::move(finding));
  }
  return findings;
}

}  // namespace soak
