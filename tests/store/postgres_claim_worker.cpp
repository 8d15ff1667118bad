// A worker process for PostgresProcessTests: claims inbox rows from a PostgreSQL store until none
// is left, journals each handling (one autocommit row in wh_test_journal, numbered by a sequence,
// before the row's completion) and completes what it handled.
//   postgres_claim_worker CONNINFO
// Once connected it writes one byte to stdout and waits for one on stdin before its first claim:
// the test starts every worker's claims together (a worker that started first could otherwise
// handle every row before the others had connected).
// Exits 0 when the inbox is empty, 1 on an error (printed).
#include <libpq-fe.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "whizbang/store/postgres/postgres_work_store.hpp"

namespace {

using namespace whizbang;

bool journal(PGconn* conn, const WorkItem& item, const Uuid& instance) {
  const std::string id = item.message_id.uuid().to_string();
  const std::string stream = item.stream_id ? item.stream_id->to_string() : std::string();
  const std::string self = instance.to_string();
  const char* values[] = {id.c_str(), stream.c_str(), self.c_str()};
  PGresult* result = PQexecParams(conn,
                                  "INSERT INTO wh_test_journal (message_id, stream_id, instance) "
                                  "VALUES ($1::uuid, $2::uuid, $3::uuid)",
                                  3, nullptr, values, nullptr, nullptr, 0);
  const bool ok = PQresultStatus(result) == PGRES_COMMAND_OK;
  if (!ok) std::fprintf(stderr, "journal: %s", PQerrorMessage(conn));
  PQclear(result);
  return ok;
}

// Rows left in the inbox (handled rows are deleted).
long remaining(PGconn* conn) {
  PGresult* result = PQexec(conn, "SELECT count(*) FROM wh_inbox");
  const long count =
      PQresultStatus(result) == PGRES_TUPLES_OK ? std::stol(PQgetvalue(result, 0, 0)) : -1;
  PQclear(result);
  return count;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: postgres_claim_worker CONNINFO\n");
    return 2;
  }
  StoreOptions options;
  options.instance.service_name = "orders";
  auto store = PostgresWorkStore::open(argv[1], options);
  if (!store.ok()) {
    std::fprintf(stderr, "open: %s\n", std::string(store.status().message()).c_str());
    return 1;
  }
  const Uuid self = (*store)->options().instance.instance_id;
  PGconn* conn = PQconnectdb(argv[1]);
  if (PQstatus(conn) != CONNECTION_OK) {
    std::fprintf(stderr, "connect: %s", PQerrorMessage(conn));
    return 1;
  }
  char go = 0;
  if (::write(STDOUT_FILENO, "r", 1) != 1 || ::read(STDIN_FILENO, &go, 1) != 1) {
    std::fprintf(stderr, "no start signal from the test\n");
    return 1;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::vector<WorkCompletion> completions;
  while (std::chrono::steady_clock::now() < deadline) {
    WorkBatchRequest request;
    request.claim_outbox = false;
    request.max_items = 5;
    request.completions = completions;
    auto items = (*store)->process_work_batch(request);
    if (!items.ok()) {
      // Another instance's transaction won a lock race: the batch rolled back whole, and its
      // completions go again with the next one.
      if (absl::IsUnavailable(items.status())) continue;
      std::fprintf(stderr, "batch: %s\n", std::string(items.status().message()).c_str());
      return 1;
    }
    completions.clear();
    for (const WorkItem& item : *items) {
      if (!journal(conn, item, self)) return 1;
      completions.push_back({WorkSource::Inbox, item.message_id, MessageStatus::EventStored});
    }
    if (items->empty() && completions.empty()) {
      const long left = remaining(conn);
      if (left == 0) break;
      if (left < 0) return 1;
      // The rest is leased to the other workers: poll again shortly, as a worker's poll
      // interval would (what is handled, and in which order, does not depend on it).
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  const long left = remaining(conn);
  PQfinish(conn);
  if (left != 0) std::fprintf(stderr, "%ld rows left at the deadline\n", left);
  return left == 0 ? 0 : 1;
}
