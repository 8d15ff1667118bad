// A dispatcher, receptor invoker and perspective runner over the generated test registry, on a
// memory or SQLite store, with captured log lines.
#pragma once

#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <whizbang/dispatch/dispatcher.hpp>
#include <whizbang/lifecycle/receptor_invoker.hpp>
#include <whizbang/store/memory_work_store.hpp>
#include <whizbang/store/postgres/postgres_work_store.hpp>
#include <whizbang/store/sqlite/sqlite_work_store.hpp>
#include <whizbang/workers/perspective_runner.hpp>

#include "read_models.hpp"
#include "support/log_capture.hpp"
#include "support/postgres_schema.hpp"
#include "support/store_backend.hpp"
#include "support/temp_dir.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace persp {

using whizbang_test::all_backends;
using whizbang_test::Backend;
using whizbang_test::backend_name;

inline const whizbang::Registry& test_registry() {
  return whizbang::generated::whizbang_perspective_tests::registry();
}

class PerspectiveFixture {
 public:
  explicit PerspectiveFixture(Backend backend = Backend::Memory,
                              whizbang::Executor* perspective_executor = nullptr) {
    services_.add<Journal>(journal).add<Behaviour>(behaviour);
    logger_ = log_.logger;

    whizbang::StoreOptions store_options;
    store_options.instance = self_;
    store_options.now = [this] { return now; };
    if (backend == Backend::Memory) {
      store = std::make_unique<whizbang::MemoryWorkStore>(store_options);
    } else if (backend == Backend::Postgres) {
      postgres_conninfo = whizbang_test::fresh_postgres_schema();
      auto postgres = whizbang::PostgresWorkStore::open(postgres_conninfo, store_options);
      EXPECT_TRUE(postgres.ok()) << postgres.status();
      store = *std::move(postgres);
    } else {
      dir_.emplace();
      auto sqlite = whizbang::SqliteWorkStore::open(dir_->file("store.db"), store_options);
      EXPECT_TRUE(sqlite.ok()) << sqlite.status();
      store = *std::move(sqlite);
    }

    whizbang::DispatcherOptions options;
    options.self = self_;
    options.store = store.get();
    options.logger = logger_;
    auto created = whizbang::Dispatcher::create(test_registry(), services_, std::move(options));
    EXPECT_TRUE(created.ok()) << created.status();
    dispatcher = *std::move(created);

    whizbang::ReceptorInvokerOptions invoker_options;
    invoker_options.logger = logger_;
    invoker = std::make_unique<whizbang::ReceptorInvoker>(*dispatcher, invoker_options);

    whizbang::PerspectiveRunnerOptions runner_options;
    runner_options.executor = perspective_executor;
    runner_options.logger = logger_;
    auto made = whizbang::PerspectiveRunner::create(test_registry(), services_, *store, *invoker,
                                                    runner_options);
    EXPECT_TRUE(made.ok()) << made.status();
    runner = *std::move(made);
  }
  ~PerspectiveFixture() {
    runner.reset();
    store.reset();  // closed before its directory goes
  }

  // An envelope for `event` on `stream`, as the inbox would hand it over.
  template <class Event>
  whizbang::Envelope envelope(Event event, const whizbang::Uuid& stream) const {
    whizbang::Envelope envelope =
        whizbang::Envelope::create(whizbang::AnyMessage::make(std::move(event)), self_);
    envelope.hops.front().stream_id = stream;
    return envelope;
  }

  template <class Model>
  Model model(std::string_view perspective, const whizbang::Uuid& stream) {
    Model out;
    auto row = store->load_perspective_model(perspective, stream);
    EXPECT_TRUE(row.ok()) << row.status();
    if (!row.ok() || !row->has_value()) {
      ADD_FAILURE() << "no model of " << perspective;
      return out;
    }
    const whizbang::PerspectiveInfo* info = test_registry().find_perspective(perspective);
    EXPECT_NE(info, nullptr);
    EXPECT_TRUE(info->model_from_json((*row)->model_json, &out).ok());
    return out;
  }

  int log_count(std::string_view text) const { return log_.count(text); }

  Journal journal;
  Behaviour behaviour;
  whizbang::TimePoint now = whizbang::TimePoint(std::chrono::seconds(1'750'000'000));
  std::unique_ptr<whizbang::WorkStore> store;
  std::unique_ptr<whizbang::Dispatcher> dispatcher;
  std::unique_ptr<whizbang::ReceptorInvoker> invoker;
  std::unique_ptr<whizbang::PerspectiveRunner> runner;
  // The PostgreSQL store's schema (Backend::Postgres only), for tests that query it with SQL.
  std::string postgres_conninfo;

 private:
  whizbang::ServiceInstance self_{"orders", whizbang::MessageId::mint().uuid(), "test-host", 7};
  whizbang::ServiceRegistry services_;
  std::optional<whizbang_test::TempDir> dir_;
  whizbang_test::LogCapture log_;
  std::shared_ptr<spdlog::logger> logger_;
};

inline constexpr std::string_view kSummary = "persp::SummaryPerspective";
inline constexpr std::string_view kCount = "persp::CountPerspective";

}  // namespace persp
