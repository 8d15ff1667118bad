// PerspectiveSync: read-your-writes. After a dispatch, wait until the perspectives have applied
// every event it emitted, then read the model (docs/perspectives.md, "Read-your-writes").
//
// A SyncToken (whizbang/dispatch/sync_token.hpp) lists the events a dispatch wrote for the event
// store. wait() returns OK once, for each of them and each chosen perspective that applies its
// type, the event is in the event store and the perspective's event row for it is gone (applied).
// It works whichever process of the service applies them, on the same store:
//   - in this process, every commit that completes perspective work wakes it;
//   - on PostgreSQL, other processes' commits wake it too (LISTEN/NOTIFY: the store's channel
//     carries "p" for perspective work);
//   - otherwise (SQLite files shared by processes) it looks again with backoff (`poll`).
// Answers: OK; DeadlineExceeded after `timeout`, naming what is still pending (perspective and
// event, or an event not in the event store yet); Aborted when a chosen perspective dead-lettered
// one of the events (it will not apply it until requeued), with its error; FailedPrecondition when
// called inside a transaction of the store (the worker would wait for it); InvalidArgument for a
// perspective name the registry does not know.
//
//   whizbang::PerspectiveSync sync(store, registry);
//   auto receipt = whizbang::send_and_sync(dispatcher, sync, CreateOrder{"o-1"},
//                                          {.timeout = 2s, .perspectives =
//                                          {"shop::OrderSummary"}});
//   if (receipt.ok()) { /* the OrderSummary model of the order has the change */ }
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "whizbang/dispatch/dispatcher.hpp"
#include "whizbang/dispatch/sync_token.hpp"
#include "whizbang/registry/registry.hpp"
#include "whizbang/retry/backoff.hpp"
#include "whizbang/store/work_store.hpp"

namespace whizbang {

struct PerspectiveSyncOptions {
  std::chrono::milliseconds timeout{5000};
  // The perspectives to wait for, by name; empty: every perspective that applies an emitted event.
  std::vector<std::string> perspectives = {};
};

class PerspectiveSync {
 public:
  // How often wait() looks again when nothing woke it (other processes on SQLite).
  static constexpr Backoff kDefaultPoll{.initial = std::chrono::milliseconds(5),
                                        .factor = 2,
                                        .cap = std::chrono::milliseconds(250),
                                        .jitter = 0};

  // Listens to `store`'s commits (on PostgreSQL, to other processes' too) until destroyed.
  PerspectiveSync(WorkStore& store, const Registry& registry, Backoff poll = kDefaultPoll);
  ~PerspectiveSync();
  PerspectiveSync(const PerspectiveSync&) = delete;
  PerspectiveSync& operator=(const PerspectiveSync&) = delete;

  absl::Status wait(const SyncToken& token, const PerspectiveSyncOptions& options = {});

 private:
  WorkStore& store_;
  const Registry& registry_;
  Backoff poll_;
  int listener_ = 0;
  std::mutex mutex_;
  std::condition_variable woken_;
  std::uint64_t commits_ = 0;  // perspective-work commits heard; guarded by mutex_
};

// Dispatch, then wait for the perspectives (upstream's LocalInvokeAndSyncAsync and its kin). The
// dispatch's own answer when it fails; the wait's when the dispatch succeeded but the wait did not
// (the dispatch is not undone: its effects are committed).
template <class Result, class Message>
absl::StatusOr<Result> local_invoke_and_sync(Dispatcher& dispatcher, PerspectiveSync& sync,
                                             Message&& message,
                                             const PerspectiveSyncOptions& options = {}) {
  EmissionCapture capture;
  absl::StatusOr<Result> result = dispatcher.local_invoke<Result>(std::forward<Message>(message));
  if (!result.ok()) return result;
  if (absl::Status status = sync.wait(capture.token(), options); !status.ok()) return status;
  return result;
}

template <class Message>
absl::Status local_invoke_and_sync(Dispatcher& dispatcher, PerspectiveSync& sync, Message&& message,
                                   const PerspectiveSyncOptions& options = {}) {
  EmissionCapture capture;
  if (absl::Status status = dispatcher.local_invoke(std::forward<Message>(message)); !status.ok()) {
    return status;
  }
  return sync.wait(capture.token(), options);
}

template <class Message>
absl::StatusOr<DeliveryReceipt> send_and_sync(Dispatcher& dispatcher, PerspectiveSync& sync,
                                              Message&& message,
                                              const PerspectiveSyncOptions& options = {}) {
  EmissionCapture capture;
  absl::StatusOr<DeliveryReceipt> receipt = dispatcher.send(std::forward<Message>(message));
  if (!receipt.ok()) return receipt;
  if (absl::Status status = sync.wait(capture.token(), options); !status.ok()) return status;
  return receipt;
}

template <class Message>
absl::StatusOr<DeliveryReceipt> publish_and_sync(Dispatcher& dispatcher, PerspectiveSync& sync,
                                                 Message&& message,
                                                 const PerspectiveSyncOptions& options = {}) {
  EmissionCapture capture;
  absl::StatusOr<DeliveryReceipt> receipt = dispatcher.publish(std::forward<Message>(message));
  if (!receipt.ok()) return receipt;
  if (absl::Status status = sync.wait(capture.token(), options); !status.ok()) return status;
  return receipt;
}

}  // namespace whizbang
