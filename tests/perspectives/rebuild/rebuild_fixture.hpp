// A store (memory, SQLite file or PostgreSQL schema) with the rebuild tests' registry: events
// appended to its event store, applied live by a PerspectiveWorker (stages and receptors
// included), and rebuilt by a PerspectiveRebuilder over the same or a reopened store.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <whizbang/dispatch/dispatcher.hpp>
#include <whizbang/lifecycle/receptor_invoker.hpp>
#include <whizbang/message/envelope_json.hpp>
#include <whizbang/store/memory_work_store.hpp>
#include <whizbang/store/postgres/postgres_work_store.hpp>
#include <whizbang/store/sqlite/sqlite_work_store.hpp>
#include <whizbang/workers/perspective_rebuilder.hpp>
#include <whizbang/workers/perspective_runner.hpp>
#include <whizbang/workers/perspective_worker.hpp>

#include "rebuild_models.hpp"
#include "support/postgres_schema.hpp"
#include "support/store_backend.hpp"
#include "support/temp_dir.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace rebuild {

using whizbang_test::Backend;

inline const whizbang::Registry& test_registry() {
  return whizbang::generated::whizbang_perspective_rebuild_tests::registry();
}
inline const std::string kCart = "rebuild::CartPerspective";

class RebuildFixture {
 public:
  explicit RebuildFixture(Backend backend) : backend_(backend) {
    services.add<Settings>(settings);
    if (backend == Backend::Sqlite) {
      dir_.emplace();
      location_ = dir_->file("store.db");
    } else if (backend == Backend::Postgres) {
      location_ = whizbang_test::fresh_postgres_schema();
    }
    store = open_store(instance);
    whizbang::DispatcherOptions options;
    options.self = {"carts", instance, "test-host", 7};
    options.store = store.get();
    auto dispatcher = whizbang::Dispatcher::create(test_registry(), services, std::move(options));
    EXPECT_TRUE(dispatcher.ok()) << dispatcher.status();
    dispatcher_ = *std::move(dispatcher);
    invoker_ = std::make_unique<whizbang::ReceptorInvoker>(*dispatcher_,
                                                           whizbang::ReceptorInvokerOptions{});
    auto runner = whizbang::PerspectiveRunner::create(test_registry(), services, *store, *invoker_);
    EXPECT_TRUE(runner.ok()) << runner.status();
    runner_ = *std::move(runner);
    whizbang::PerspectiveWorkerOptions worker_options;
    worker_options.max_batch = 500;
    worker_ = std::make_unique<whizbang::PerspectiveWorker>(*store, *runner_, worker_options);
  }
  ~RebuildFixture() {
    worker_.reset();
    runner_.reset();
    store.reset();  // closed before its directory goes
  }

  // Another store object on the same file or schema (another instance or process).
  std::unique_ptr<whizbang::WorkStore> open_store(const whizbang::Uuid& instance_id) {
    whizbang::StoreOptions options;
    options.instance = {"carts", instance_id, "test-host", 7};
    options.durability = whizbang::Durability::Normal;
    if (backend_ == Backend::Memory) {
      return std::make_unique<whizbang::MemoryWorkStore>(options);
    }
    if (backend_ == Backend::Postgres) {
      auto opened = whizbang::PostgresWorkStore::open(location_, options);
      EXPECT_TRUE(opened.ok()) << opened.status();
      return opened.ok() ? std::unique_ptr<whizbang::WorkStore>(*std::move(opened)) : nullptr;
    }
    auto opened = whizbang::SqliteWorkStore::open(location_, options);
    EXPECT_TRUE(opened.ok()) << opened.status();
    return opened.ok() ? std::unique_ptr<whizbang::WorkStore>(*std::move(opened)) : nullptr;
  }
  const std::string& location() const { return location_; }

  // `per_stream` events on each of `count` new streams (mostly ItemAdded, every fifth an
  // ItemRemoved), appended to the event store, interleaved across streams.
  void append_streams(int count, int per_stream) {
    const std::size_t first = streams.size();
    for (int s = 0; s < count; ++s) streams.push_back(whizbang::MessageId::mint().uuid());
    std::vector<whizbang::OutboxMessage> rows;
    for (int n = 0; n < per_stream; ++n) {
      for (std::size_t s = first; s < streams.size(); ++s) {
        rows.push_back(event_row(streams[s], n));
        if (rows.size() >= 1000) flush(rows);
      }
    }
    flush(rows);
  }
  // One more event on `stream` (the next in its sequence).
  void append_one(const whizbang::Uuid& stream) {
    std::vector<whizbang::OutboxMessage> rows{event_row(stream, next_sequence_[stream])};
    flush(rows);
  }

  // Applies every pending perspective event live (stages and receptors included).
  void apply_live() {
    for (int cycle = 0; cycle < 100'000; ++cycle) {
      auto result = worker_->run_once();
      ASSERT_TRUE(result.ok()) << result.status();
      if (result->applied + result->already_applied + result->failed == 0) return;
    }
  }

  // Every stream's stored model JSON of `perspective` (the model only, not its row's times).
  std::map<whizbang::Uuid, std::string> models(const std::string& perspective = kCart) {
    std::map<whizbang::Uuid, std::string> out;
    for (const whizbang::Uuid& stream : streams) {
      auto row = store->load_perspective_model(perspective, stream);
      EXPECT_TRUE(row.ok()) << row.status();
      if (row.ok() && row->has_value()) out[stream] = (*row)->model_json;
    }
    return out;
  }

  // `with_stages`: receptors opted in to rebuilds fire through the live path's invoker.
  std::unique_ptr<whizbang::PerspectiveRebuilder> rebuilder(whizbang::WorkStore& on,
                                                            bool with_stages = false) {
    auto made = whizbang::PerspectiveRebuilder::create(test_registry(), services, on, nullptr,
                                                       with_stages ? invoker_.get() : nullptr);
    EXPECT_TRUE(made.ok()) << made.status();
    return made.ok() ? *std::move(made) : nullptr;
  }

  Settings settings;
  whizbang::ServiceRegistry services;
  whizbang::Uuid instance = whizbang::MessageId::mint().uuid();
  std::unique_ptr<whizbang::WorkStore> store;
  std::vector<whizbang::Uuid> streams;

 private:
  whizbang::OutboxMessage event_row(const whizbang::Uuid& stream, std::int64_t n) {
    const std::int64_t sequence = next_sequence_[stream]++;
    whizbang::AnyMessage payload =
        n % 5 == 4
            ? whizbang::AnyMessage::make(ItemRemoved{{}, "sku-" + std::to_string(n), sequence})
            : whizbang::AnyMessage::make(ItemAdded{
                  {}, "sku-" + std::to_string(n), static_cast<std::int32_t>(1 + n % 3), sequence});
    whizbang::Envelope envelope =
        whizbang::Envelope::create(std::move(payload), {"carts", instance, "test-host", 7});
    envelope.hops.front().stream_id = stream;
    whizbang::OutboxMessage row;
    row.message_id = envelope.message_id;
    row.message_type = std::string(envelope.payload.info()->wire_name);
    row.envelope_json = whizbang::serialize_envelope(envelope);
    row.stream_id = stream;
    row.is_event = true;
    return row;
  }
  void flush(std::vector<whizbang::OutboxMessage>& rows) {
    if (rows.empty()) return;
    whizbang::WorkBatchRequest request;
    request.new_outbox = std::move(rows);
    // Claimed now, so appended to the event store; with what receptors cascaded meanwhile
    // (CartAuditor), which stays claimed (and so out of the next flush's claim).
    request.max_items = 1'000'000;
    request.claim_inbox = false;
    rows.clear();
    auto stored = store->process_work_batch(request);
    ASSERT_TRUE(stored.ok()) << stored.status();
    // Published: the rows leave the outbox, so the next flush claims only its own.
    whizbang::WorkBatchRequest done;
    done.claim_outbox = false;
    done.claim_inbox = false;
    for (const whizbang::OutboxMessage& row : request.new_outbox) {
      done.completions.push_back({whizbang::WorkSource::Outbox, row.message_id,
                                  whizbang::MessageStatus::Stored |
                                      whizbang::MessageStatus::EventStored |
                                      whizbang::MessageStatus::Published});
    }
    auto completed = store->process_work_batch(done);
    ASSERT_TRUE(completed.ok()) << completed.status();
  }

  Backend backend_;
  std::optional<whizbang_test::TempDir> dir_;
  std::string location_ = ":memory:";
  std::map<whizbang::Uuid, std::int64_t> next_sequence_;
  std::unique_ptr<whizbang::Dispatcher> dispatcher_;
  std::unique_ptr<whizbang::ReceptorInvoker> invoker_;
  std::unique_ptr<whizbang::PerspectiveRunner> runner_;
  std::unique_ptr<whizbang::PerspectiveWorker> worker_;
};

}  // namespace rebuild
