// StoreOptions: what every WorkStore implementation is built with.
//
//   whizbang::StoreOptions options;
//   options.instance = {"orders", whizbang::MessageId::mint().uuid(), "host-1", ::getpid()};
//   options.metrics = metrics;          // optional: emission-dedup counter
//   options.logger = logger;            // optional: Debug line per deduplicated row
//   options.now = [&] { return clock.now(); };   // tests: an injectable clock
//   options.max_attempts = 5;           // dead-letter after the 5th failure (default 10)
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "spdlog/logger.h"
#include "whizbang/message/envelope.hpp"
#include "whizbang/observability/metrics.hpp"

namespace whizbang {

// How far a commit is on disk when it returns (SQLite's `synchronous` under WAL).
enum class Durability : std::uint8_t {
  // Every commit is synced: an acknowledged inbox row or a published outbox completion survives
  // a power loss or an OS crash. The default.
  Full = 0,
  // Synced at checkpoints only: survives a crash of the process, but a power loss or OS crash can
  // lose the last commits, among them inbox rows already acknowledged to the transport (the
  // sender will not send them again). Several times the commit rate on slow disks.
  Normal = 1,
};

struct StoreOptions {
  // This process's instance: owner of the leases it takes, heartbeat row in
  // wh_service_instances. A nil instance_id is replaced by a fresh one when the store opens.
  ServiceInstance instance;
  // How long a claimed or freshly stored row stays leased to this instance.
  std::chrono::seconds lease_duration{300};
  // Time source; defaults to the system clock.
  std::function<TimePoint()> now;
  // The failure that brings a row's attempts to this many dead-letters it (WorkFailure). 0: retry
  // forever.
  int max_attempts = 10;
  Durability durability = Durability::Full;
  // SQLite: the permissions of a store file it creates, whatever the umask (its -wal and -shm
  // files get the same). Owner only by default: a store holds payloads and user ids. 0640 lets
  // a group read it (operators' inspection tools).
  unsigned file_mode = 0600;
  std::shared_ptr<Metrics> metrics;
  std::shared_ptr<spdlog::logger> logger;
};

// How long the store keeps bookkeeping that only guards against duplicates (WorkStore::purge).
// Past these ages a duplicate is no longer recognised: a redelivery of an inbox message older than
// `inbox_deduplication` is handled again, a re-emission of an outbox id older than
// `outbox_tombstones` is published again. An outbox id's age counts from when it was stored, and
// an id whose row still waits to be published is never purged. Keep them longer than any
// redelivery or retry window.
struct RetentionOptions {
  std::chrono::seconds inbox_deduplication = std::chrono::hours(24 * 7);
  std::chrono::seconds outbox_tombstones = std::chrono::hours(24 * 7);
  std::chrono::seconds receptor_invocations = std::chrono::hours(24 * 7);
  // Service instances whose last heartbeat is older.
  std::chrono::seconds service_instances = std::chrono::hours(24);
  // Dead letters of deliveries the inbox refused at its door and kept itself (a transport without
  // dead letters of its own; docs/guide/16-security.md), dead-lettered longer ago.
  std::chrono::seconds refused_deliveries = std::chrono::hours(24 * 7);
  // The records of keyed dispatches (Dispatcher::send/publish with an IdempotencyKey): a retry
  // with the same key later than this is a new dispatch.
  std::chrono::seconds dispatch_keys = std::chrono::hours(24 * 7);
  // Rows a purge removes per transaction. A purge of a million expired rows in one transaction
  // held the store (and SQLite's write lock) for seconds, and every worker waited; in batches a
  // worker waits for one batch at most (docs/guide/11-failures.md, "Retention").
  std::size_t purge_batch_size = 5000;
};

}  // namespace whizbang
