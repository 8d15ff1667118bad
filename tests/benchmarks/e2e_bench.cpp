// Durable end to end: publish in one service, outbox -> transport -> inbox of a second service
// (its own store) -> receptor.
// - In process on SQLite (a file per service), stepped through both services' workers: 1000
//   messages published 1000 per transaction or one per transaction, at FULL and at NORMAL
//   durability; beside them the raw sqlite3 path of the same row operations (the baseline), and
//   the latency at a light load (1000 messages/s offered, workers on their threads).
// - In process on PostgreSQL (a schema per service on the server WHIZBANG_PG_CONNINFO names; see
//   postgres_bench for starting one): batches of 100 publishes. Its raw insert baseline is
//   postgres_bench.
// - Over RabbitMQ (WHIZBANG_AMQP_URL; see rabbitmq_bench for starting a broker): both services
//   on their worker threads with a RabbitMqTransport each (their own connections), SQLite
//   stores; messages/s for batches of 100, and the publish -> remote receptor latency of one
//   message at a time (p50/p99). Also the two services as two processes (the consumer forked),
//   run unpinned. The raw rabbitmq-c loop of the same run is the baseline.
//   build/tests/benchmarks/e2e_bench
#include <benchmark/benchmark.h>

#include <libpq-fe.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>

#include <whizbang/host/service_host.hpp>
#include <whizbang/store/open_work_store.hpp>
#include <whizbang/transport/in_process_transport.hpp>
#include <whizbang/transport/rabbitmq/rabbitmq_topology.hpp>
#include <whizbang/transport/rabbitmq/rabbitmq_transport.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "cpu_per_message.hpp"
#include "dispatch_bench_messages.hpp"
#include "e2e_bench_messages.hpp"
#include "raw_amqp_loop.hpp"
#include "raw_sqlite_path.hpp"
#include "whizbang_registry.hpp"

namespace {

// A fresh schema for `name`'s store on the PostgreSQL server WHIZBANG_PG_CONNINFO names ("" when
// there is no server).
std::string postgres_schema(const std::string& name) {
  const char* conninfo = std::getenv("WHIZBANG_PG_CONNINFO");
  if (conninfo == nullptr) return {};
  const std::string schema = "e2e_" + name;
  PGconn* admin = PQconnectdb(conninfo);
  PQclear(PQexec(
      admin, ("DROP SCHEMA IF EXISTS " + schema + " CASCADE; CREATE SCHEMA " + schema).c_str()));
  PQfinish(admin);
  const std::string base(conninfo);
  return base + (base.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" +
         schema;
}

// The consumer's registry: every message and receptor of the benchmark. A producer of Ticks runs
// on bench::producer_registry(), which has no receptor: it publishes Ticks and never takes them
// back, as a producer service does and as the raw baselines do.
const whizbang::Registry& consumer_registry() { return whizbang::generated::e2e_bench::registry(); }

// How a node runs: stepped by the benchmark (subscribed to what its receptors handle), stepped
// and publishing only (never subscribed), or on its own worker threads (a broker delivers on its
// own threads).
enum class Run { Stepped, PublishOnly, Threads };

struct Node {
  Node(const std::string& location, const std::string& name, whizbang::Transport& transport,
       const whizbang::Registry& registry, Run run = Run::Stepped,
       whizbang::Durability durability = whizbang::Durability::Full, std::size_t inbox_group = 100,
       std::optional<bool> handle_on_delivery = std::nullopt) {
    whizbang::StoreOptions store_options;
    store_options.instance.service_name = name;
    store_options.durability = durability;
    store = *whizbang::open_work_store(location, store_options);
    services.add<bench::Counter>(counter).add<bench::Tally>(tally);
    whizbang::HostOptions options;
    options.service_name = name;
    options.store = store.get();
    options.transport = &transport;
    options.inbox_max_group = inbox_group;
    options.inbox_handle_on_delivery = handle_on_delivery;
    host = *whizbang::ServiceHost::create(registry, services, std::move(options));
    if (run == Run::Threads) {
      (void)host->start();
    } else if (run == Run::Stepped) {
      (void)host->subscribe();  // no threads: the benchmark steps the workers itself
    }
  }
  // Publishes one Tick stamped with its send time, as a message for the outbox.
  void publish_tick() {
    bench::Tick tick;
    tick.sent_at_ns = bench::steady_now_ns();
    (void)host->dispatcher().publish(whizbang::Route::Outbox(tick));
  }

  bench::Counter counter;
  bench::Tally tally;
  whizbang::ServiceRegistry services;
  std::unique_ptr<whizbang::WorkStore> store;
  std::unique_ptr<whizbang::ServiceHost> host;
};

// Batches of 100 Pings published outside a transaction, both services stepped, on PostgreSQL.
void BM_DurableEndToEnd_PublishToRemoteReceptor_Postgres(benchmark::State& state) {
  const std::string producer_store = postgres_schema("producer");
  const std::string consumer_store = postgres_schema("consumer");
  if (producer_store.empty()) {
    state.SkipWithError("WHIZBANG_PG_CONNINFO is not set: no PostgreSQL server to run on");
    return;
  }
  {
    whizbang::InProcessTransport transport;
    Node producer(producer_store, "producer", transport, consumer_registry(), Run::PublishOnly);
    Node consumer(consumer_store, "consumer", transport, consumer_registry());
    const std::int64_t batch = state.range(0);
    bench::Ping ping;
    ping.n = 1;
    for (auto _ : state) {
      // Two receptors of Ping run in the consumer (PostInboxDetached and PostInboxInline).
      const std::int64_t target = consumer.counter.value + 2 * batch;
      for (std::int64_t i = 0; i < batch; ++i) {
        (void)producer.host->dispatcher().publish(whizbang::Route::Outbox(ping));
      }
      while (consumer.counter.value < target) {
        (void)producer.host->run_once();
        (void)consumer.host->run_once();
      }
    }
    state.SetItemsProcessed(state.iterations() * batch);
  }
}
BENCHMARK(BM_DurableEndToEnd_PublishToRemoteReceptor_Postgres)
    ->Arg(100)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

using bench::CpuPerMessage;

void set_latency_counters(benchmark::State& state, std::vector<std::int64_t> latencies) {
  if (latencies.empty()) return;
  std::sort(latencies.begin(), latencies.end());
  state.counters["p50_us"] = static_cast<double>(latencies[latencies.size() / 2]) / 1000.0;
  state.counters["p99_us"] =
      static_cast<double>(latencies[std::min(latencies.size() - 1, latencies.size() * 99 / 100)]) /
      1000.0;
}

// The shapes of docs/guide/06-stores-and-workers.md's throughput section, on SQLite, in process,
// stepped: 1000 Ticks per iteration, published `publish_batch` per transaction (1000: one
// transaction; 1: each its own), at FULL or NORMAL durability; both services' workers stepped
// until the consumer's receptor saw them all. Latency: publish -> remote receptor, at saturation.
constexpr std::int64_t kShapeMessages = 1000;

void BM_DurableEndToEnd_Sqlite(benchmark::State& state) {
  const std::int64_t publish_batch = state.range(0);
  const auto durability =
      state.range(1) != 0 ? whizbang::Durability::Normal : whizbang::Durability::Full;
  const auto inbox_group = static_cast<std::size_t>(state.range(2));
  // The consumer handles each delivery as it stores it (HostOptions::inbox_handle_on_delivery),
  // here on the producer's drain thread, which the in-process transport delivers on.
  const std::optional<bool> on_delivery =
      state.range(3) != 0 ? std::optional<bool>(true) : std::nullopt;
  const auto dir = std::filesystem::temp_directory_path() /
                   ("whizbang-e2e-" + whizbang::MessageId::mint().to_string());
  std::filesystem::create_directories(dir);
  {
    whizbang::InProcessTransport transport;
    Node producer((dir / "producer.db").string(), "producer", transport, bench::producer_registry(),
                  Run::Stepped, durability, inbox_group);
    Node consumer((dir / "consumer.db").string(), "consumer", transport, consumer_registry(),
                  Run::Stepped, durability, inbox_group, on_delivery);
    whizbang::WorkStore& store = *producer.store;
    const CpuPerMessage cpu;
    for (auto _ : state) {
      const std::int64_t target = consumer.tally.count() + kShapeMessages;
      for (std::int64_t sent = 0; sent < kShapeMessages;) {
        whizbang::Transaction transaction(store);
        for (std::int64_t i = 0; i < publish_batch && sent < kShapeMessages; ++i, ++sent) {
          producer.publish_tick();
        }
        (void)transaction.commit();
      }
      while (consumer.tally.count() < target) {
        (void)producer.host->run_once();
        (void)consumer.host->run_once();
      }
    }
    cpu.report(state, state.iterations() * kShapeMessages);
    state.SetItemsProcessed(state.iterations() * kShapeMessages);
    set_latency_counters(state, consumer.tally.take_latencies());
  }
  std::filesystem::remove_all(dir);
}
// inbox_group: the inbox worker's handlings per commit (group commit); 1 commits each alone.
BENCHMARK(BM_DurableEndToEnd_Sqlite)
    ->ArgNames({"publish_batch", "normal", "inbox_group", "on_delivery"})
    ->Args({1000, 0, 100, 0})
    ->Args({1000, 0, 1, 0})
    ->Args({1, 0, 100, 0})
    ->Args({1000, 1, 100, 0})
    ->Args({1000, 1, 1, 0})
    ->Args({1, 1, 100, 0})
    ->Args({1000, 0, 100, 1})
    ->Args({1000, 1, 100, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The raw baseline of the same run: the same row operations in the same batch sizes and
// durability, as hand-written sqlite3 statements (raw_sqlite_path.hpp).
void BM_RawSqlitePath(benchmark::State& state) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("whizbang-e2e-raw-" + whizbang::MessageId::mint().to_string());
  std::filesystem::create_directories(dir);
  {
    bench::RawSqlitePath path(
        dir, state.range(1) != 0 ? bench::RawDurability::Normal : bench::RawDurability::Full);
    const CpuPerMessage cpu;
    for (auto _ : state) {
      if (!path.move(static_cast<int>(kShapeMessages), static_cast<int>(state.range(0)))) {
        state.SkipWithError("sqlite3 error");
        break;
      }
    }
    cpu.report(state, state.iterations() * kShapeMessages);
    state.SetItemsProcessed(state.iterations() * kShapeMessages);
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_RawSqlitePath)
    ->ArgNames({"publish_batch", "normal"})
    ->Args({1000, 0})
    ->Args({1, 0})
    ->Args({1000, 1})
    ->Args({1, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Latency at a light load: both services on their worker threads (woken by commits), 1000
// Ticks offered at 1000 per second, each published outside a transaction (the default: queued
// for the drain worker, which the queueing wakes).
void BM_DurableEndToEnd_Sqlite_LightLoadLatency(benchmark::State& state) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("whizbang-e2e-light-" + whizbang::MessageId::mint().to_string());
  std::filesystem::create_directories(dir);
  {
    whizbang::InProcessTransport transport;
    Node consumer((dir / "consumer.db").string(), "consumer", transport, consumer_registry(),
                  Run::Threads);
    Node producer((dir / "producer.db").string(), "producer", transport, bench::producer_registry(),
                  Run::Threads);
    std::int64_t total = 0;
    for (auto _ : state) {
      auto next = std::chrono::steady_clock::now();
      for (int i = 0; i < 1000; ++i) {
        std::this_thread::sleep_until(next);
        next += std::chrono::milliseconds(1);
        producer.publish_tick();
      }
      total += 1000;
      if (!consumer.tally.wait_for(total, std::chrono::seconds(60))) {
        state.SkipWithError("messages did not arrive within 60 s");
        break;
      }
    }
    state.SetItemsProcessed(state.iterations() * 1000);
    set_latency_counters(state, consumer.tally.take_latencies());
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_DurableEndToEnd_Sqlite_LightLoadLatency)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
// Both services' durable queues (and their dead-letter queues) go with the run: left behind,
// the Ticks nobody consumes any more pile up on the broker and slow every later run down.
void delete_queues(const std::string& suffix) {
  bench::RawConnection raw(bench::bench_amqp_options());
  if (!raw.ok) return;
  const std::string exchange =
      whizbang::default_destination(whizbang::MessageTraits<bench::Tick>::info());
  for (const std::string& service : {"consumer-" + suffix, "producer-" + suffix}) {
    const std::string queue = whizbang::rabbitmq_queue_name(service, exchange);
    for (const std::string& name : {queue, whizbang::rabbitmq_dead_letter_queue(queue)}) {
      amqp_queue_delete(raw.state, 1, amqp_cstring_bytes(name.c_str()), 0, 0);
      if (amqp_get_rpc_reply(raw.state).reply_type != AMQP_RESPONSE_NORMAL) return;
    }
  }
}

// Two services over the broker, on their threads; the consumer's queue declared first.
struct BrokerPair {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("whizbang-e2e-amqp-" + whizbang::MessageId::mint().to_string());
  whizbang::RabbitMqTransport producer_transport{bench::bench_amqp_options()};
  whizbang::RabbitMqTransport consumer_transport{bench::bench_amqp_options()};
  std::string suffix = bench::unique_amqp_name("e2e");
  std::unique_ptr<Node> consumer;
  std::unique_ptr<Node> producer;

  // `handle_on_delivery`: the consumer's setting (unset: the host's choice, on for SQLite).
  bool start(whizbang::Durability durability = whizbang::Durability::Full,
             std::optional<bool> handle_on_delivery = std::nullopt) {
    std::filesystem::create_directories(dir);
    if (!producer_transport.is_ready() || !consumer_transport.is_ready()) return false;
    consumer = std::make_unique<Node>((dir / "consumer.db").string(), "consumer-" + suffix,
                                      consumer_transport, consumer_registry(), Run::Threads,
                                      durability, 100, handle_on_delivery);
    producer = std::make_unique<Node>((dir / "producer.db").string(), "producer-" + suffix,
                                      producer_transport, bench::producer_registry(), Run::Threads,
                                      durability);
    return true;
  }
  ~BrokerPair() {
    producer.reset();
    consumer.reset();
    delete_queues(suffix);
    std::filesystem::remove_all(dir);
  }
};

// `batch` publishes per iteration, each outside any transaction (queued for the drain worker) or
// all in one transaction (the transactional outbox); FULL or NORMAL durability; the consumer
// handling deliveries on the subscription's thread (the default on SQLite) or on its inbox
// worker's (on_delivery 0: the shape before handling on delivery, for comparison).
void BM_DurableEndToEnd_OverRabbitMq_Sqlite(benchmark::State& state) {
  BrokerPair pair;
  const bool one_transaction = state.range(2) != 0;
  if (!pair.start(state.range(1) != 0 ? whizbang::Durability::Normal : whizbang::Durability::Full,
                  state.range(3) != 0)) {
    return state.SkipWithError("no broker (WHIZBANG_AMQP_URL)");
  }
  const std::int64_t batch = state.range(0);
  std::int64_t total = 0;
  const CpuPerMessage cpu;
  std::int64_t publishing_ns = 0;  // the publisher's own part: publishes and commit
  for (auto _ : state) {
    {
      const std::int64_t started = bench::steady_now_ns();
      std::optional<whizbang::Transaction> transaction;
      if (one_transaction) transaction.emplace(*pair.producer->store);
      for (std::int64_t i = 0; i < batch; ++i) pair.producer->publish_tick();
      if (transaction) (void)transaction->commit();
      publishing_ns += bench::steady_now_ns() - started;
    }
    total += batch;
    if (!pair.consumer->tally.wait_for(total, std::chrono::seconds(60))) {
      return state.SkipWithError("messages did not arrive within 60 s");
    }
  }
  cpu.report(state, total);
  if (total > 0) {
    state.counters["publish_us_per_msg"] =
        static_cast<double>(publishing_ns) / 1000.0 / static_cast<double>(total);
  }
  state.SetItemsProcessed(state.iterations() * batch);
}
BENCHMARK(BM_DurableEndToEnd_OverRabbitMq_Sqlite)
    ->ArgNames({"batch", "normal", "one_transaction", "on_delivery"})
    ->Args({100, 0, 0, 1})
    ->Args({100, 0, 1, 1})
    ->Args({100, 1, 1, 1})
    ->Args({100, 0, 0, 0})
    ->Args({100, 0, 1, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_DurableEndToEnd_OverRabbitMq_OneMessageLatency(benchmark::State& state) {
  BrokerPair pair;
  if (!pair.start()) return state.SkipWithError("no broker (WHIZBANG_AMQP_URL)");
  std::int64_t total = 0;
  for (auto _ : state) {
    pair.producer->publish_tick();
    if (!pair.consumer->tally.wait_for(++total, std::chrono::seconds(60))) {
      return state.SkipWithError("the message did not arrive within 60 s");
    }
  }
  set_latency_counters(state, pair.consumer->tally.take_latencies());
}
BENCHMARK(BM_DurableEndToEnd_OverRabbitMq_OneMessageLatency)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// The consumer service as a process of its own (forked: its store, broker connections and
// threads), for the two-process shape. It reports on a pipe: 'R' once its queue is declared, a
// byte per `batch` Ticks handled and committed, and, once the command pipe closes, its latencies.
class ConsumerProcess {
 public:
  ConsumerProcess(const std::filesystem::path& store, const std::string& service,
                  std::int64_t batch) {
    int report[2];
    int command[2];
    if (pipe(report) != 0 || pipe(command) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      close(report[0]);
      close(command[1]);
      run(report[1], command[0], store, service, batch);
    }
    close(report[1]);
    close(command[0]);
    report_ = report[0];
    command_ = command[1];
  }
  ~ConsumerProcess() { (void)stop(); }

  bool ready() { return read_byte() == 'R'; }
  // Blocks until the child handled its next `batch` Ticks; false when it died.
  bool next_batch() { return read_byte() == 'B'; }
  // Stops the child; its publish -> receptor latencies, in ns.
  std::vector<std::int64_t> stop() {
    std::vector<std::int64_t> latencies;
    if (pid_ <= 0) return latencies;
    close(command_);
    std::int64_t count = 0;
    if (read_all(&count, sizeof count) && count > 0) {
      latencies.resize(static_cast<std::size_t>(count));
      if (!read_all(latencies.data(), latencies.size() * sizeof(std::int64_t))) latencies.clear();
    }
    close(report_);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
    return latencies;
  }

 private:
  [[noreturn]] static void run(int report, int command, const std::filesystem::path& store,
                               const std::string& service, std::int64_t batch) {
    std::atomic<bool> stopping{false};
    {
      whizbang::RabbitMqTransport transport(bench::bench_amqp_options());
      if (!transport.is_ready()) {
        (void)write_all(report, "F", 1);
        _exit(1);
      }
      Node consumer(store.string(), service, transport, consumer_registry(), Run::Threads);
      std::thread commands([&] {
        char byte;
        while (read(command, &byte, 1) > 0) {
        }
        stopping = true;  // the command pipe closed: the benchmark is done
      });
      (void)write_all(report, "R", 1);
      for (std::int64_t total = batch; !stopping; total += batch) {
        while (!consumer.tally.wait_for(total, std::chrono::seconds(1)) && !stopping) {
        }
        if (stopping) break;
        // A batch counts once its handlings are durable, not when the receptor fired inside its
        // handling's transaction: a transaction of this thread begins only once that one ended
        // (the store's calls from other threads wait for it), and rolls back at once.
        {
          const whizbang::Transaction settled(*consumer.store);
        }
        (void)write_all(report, "B", 1);
      }
      commands.join();
      const std::vector<std::int64_t> latencies = consumer.tally.take_latencies();
      const auto count = static_cast<std::int64_t>(latencies.size());
      (void)write_all(report, &count, sizeof count);
      (void)write_all(report, latencies.data(), latencies.size() * sizeof(std::int64_t));
    }
    _exit(0);  // not the parent's atexit handlers
  }
  static bool write_all(int fd, const void* data, std::size_t size) {
    const char* at = static_cast<const char*>(data);
    while (size > 0) {
      const ssize_t n = write(fd, at, size);
      if (n <= 0) return false;
      at += n;
      size -= static_cast<std::size_t>(n);
    }
    return true;
  }
  bool read_all(void* data, std::size_t size) {
    char* at = static_cast<char*>(data);
    while (size > 0) {
      const ssize_t n = read(report_, at, size);
      if (n <= 0) return false;
      at += n;
      size -= static_cast<std::size_t>(n);
    }
    return true;
  }
  char read_byte() {
    char byte = 0;
    return read_all(&byte, 1) ? byte : '\0';
  }

  pid_t pid_ = -1;
  int report_ = -1;
  int command_ = -1;
};

// Two service processes: the producer here, the consumer forked (ConsumerProcess). `batch`
// publishes per iteration in one transaction. With ahead 0 the iteration ends when the consumer
// process reports them handled: one batch crosses at a time, as the raw loop's do. With ahead N
// the producer commits up to N batches more before it waits for the oldest one: the services
// work on consecutive batches at once, as under a steady stream of messages (the sustained
// rate; compare it with the raw loop's `pipelined` form). Run unpinned: each process gets a
// core, as two services would.
void BM_DurableEndToEnd_OverRabbitMq_TwoProcesses(benchmark::State& state) {
  const std::int64_t batch = state.range(0);
  const std::int64_t ahead = state.range(1);
  const std::string suffix = bench::unique_amqp_name("e2e2p");
  const auto dir = std::filesystem::temp_directory_path() / ("whizbang-e2e-2p-" + suffix);
  std::filesystem::create_directories(dir);
  {
    ConsumerProcess consumer(dir / "consumer.db", "consumer-" + suffix, batch);
    if (!consumer.ready()) {
      state.SkipWithError("the consumer process did not start (broker: WHIZBANG_AMQP_URL)");
    } else {
      whizbang::RabbitMqTransport transport(bench::bench_amqp_options());
      Node producer((dir / "producer.db").string(), "producer-" + suffix, transport,
                    bench::producer_registry(), Run::Threads);
      std::int64_t outstanding = 0;  // batches committed, not yet reported handled
      bool stopped = false;
      for (auto _ : state) {
        whizbang::Transaction transaction(*producer.store);
        for (std::int64_t i = 0; i < batch; ++i) {
          producer.publish_tick();
        }
        (void)transaction.commit();
        for (++outstanding; outstanding > ahead; --outstanding) {
          if (!consumer.next_batch()) {
            stopped = true;
            break;
          }
        }
        if (stopped) break;
      }
      // The timing ended with the loop: the batches still crossing then are not counted (their
      // publishing was: the rate errs low).
      const std::int64_t handled = static_cast<std::int64_t>(state.iterations()) - outstanding;
      for (; outstanding > 0 && !stopped; --outstanding) stopped = !consumer.next_batch();
      if (stopped) state.SkipWithError("the consumer process stopped");
      state.SetItemsProcessed(handled * batch);
    }
    set_latency_counters(state, consumer.stop());
  }
  delete_queues(suffix);
  std::filesystem::remove_all(dir);
}
// batch 1: one message at a time, for its publish -> remote receptor latency.
BENCHMARK(BM_DurableEndToEnd_OverRabbitMq_TwoProcesses)
    ->ArgNames({"batch", "ahead"})
    ->Args({100, 0})
    ->Args({1, 0})
    ->Args({100, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The two-process shape (batch 100, ahead 0) and the raw loop, paired: each iteration moves one
// batch of 100 each way, in alternating order, and times each. Timed as separate benchmarks, the
// two drift apart with the broker and the neighbours (the raw loop alone moved from 5.4 to 9.7 ms
// between runs minutes apart); paired, both see the same moment, so `ratio` (the library's rate
// over the raw loop's, raw time / library time) is the figure to read. `library_properties` as
// for the raw loop below.
// A third leg, the durable floor: the raw loop's batch plus the raw sqlite3 path's row work for
// the same 100 messages at FULL durability (raw_sqlite_path.hpp: outbox, claims, event store,
// inbox with dedup, invocation records; one after the other, as one batch crosses at a time).
// `floor_ratio` is the library's rate over that floor's: what the library costs beyond the
// broker and the rows it must write. The raw path writes an inbox row the library's handling on
// delivery skips, so the floor errs high and `floor_ratio` high.
void BM_DurableEndToEnd_OverRabbitMq_TwoProcesses_PairedWithRawLoop(benchmark::State& state) {
  constexpr std::int64_t kBatch = 100;
  const std::string suffix = bench::unique_amqp_name("e2epair");
  const auto dir = std::filesystem::temp_directory_path() / ("whizbang-e2e-pair-" + suffix);
  std::filesystem::create_directories(dir);
  {
    bench::RawLoop raw;
    raw.library_properties = state.range(0) != 0;
    bench::RawSqlitePath raw_rows(dir / "raw-rows", bench::RawDurability::Full);
    ConsumerProcess consumer(dir / "consumer.db", "consumer-" + suffix, kBatch);
    if (!raw.setup() || !consumer.ready()) {
      state.SkipWithError("no broker, or the consumer process did not start (WHIZBANG_AMQP_URL)");
    } else {
      whizbang::RabbitMqTransport transport(bench::bench_amqp_options());
      Node producer((dir / "producer.db").string(), "producer-" + suffix, transport,
                    bench::producer_registry(), Run::Threads);
      using Clock = std::chrono::steady_clock;
      Clock::duration library_time{};
      Clock::duration raw_time{};
      Clock::duration floor_time{};
      const auto library_batch = [&] {
        const Clock::time_point start = Clock::now();
        whizbang::Transaction transaction(*producer.store);
        for (std::int64_t i = 0; i < kBatch; ++i) producer.publish_tick();
        const bool ok = transaction.commit().ok() && consumer.next_batch();
        library_time += Clock::now() - start;
        return ok;
      };
      const auto raw_batch = [&] {
        const Clock::time_point start = Clock::now();
        const bool ok = raw.publish(kBatch) && raw.consume(kBatch);
        raw_time += Clock::now() - start;
        return ok;
      };
      const auto floor_batch = [&] {
        const Clock::time_point start = Clock::now();
        const bool ok = raw_rows.move(kBatch, kBatch) && raw.publish(kBatch) && raw.consume(kBatch);
        floor_time += Clock::now() - start;
        return ok;
      };
      // The three legs in a rotating order, so none always follows the same one.
      int first = 0;
      const std::array<std::function<bool()>, 3> legs{library_batch, raw_batch, floor_batch};
      for (auto _ : state) {
        bool ok = true;
        for (int leg = 0; leg < 3 && ok; ++leg)
          ok = legs[static_cast<std::size_t>((first + leg) % 3)]();
        if (!ok) {
          state.SkipWithError("a batch did not cross");
          break;
        }
        first = (first + 1) % 3;
      }
      const auto per_batch_ms = [&](Clock::duration total) {
        return std::chrono::duration<double, std::milli>(total).count() /
               static_cast<double>(std::max<benchmark::IterationCount>(state.iterations(), 1));
      };
      state.counters["library_ms"] = per_batch_ms(library_time);
      state.counters["raw_ms"] = per_batch_ms(raw_time);
      state.counters["floor_ms"] = per_batch_ms(floor_time);
      if (library_time.count() > 0) {
        const double library_seconds = std::chrono::duration<double>(library_time).count();
        state.counters["ratio"] = std::chrono::duration<double>(raw_time).count() / library_seconds;
        state.counters["floor_ratio"] =
            std::chrono::duration<double>(floor_time).count() / library_seconds;
      }
    }
    (void)consumer.stop();
  }
  delete_queues(suffix);
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_DurableEndToEnd_OverRabbitMq_TwoProcesses_PairedWithRawLoop)
    ->ArgNames({"library_properties"})
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The baseline: the same number of 800-byte messages through the broker with raw rabbitmq-c
// (publish 100 with confirms, consume them with acks), no store. With library_properties:1, the
// messages also carry the properties and headers the library's do (raw_amqp_loop.hpp), so the
// two differ only in the library's own work. With pipelined:1 a thread of its own consumes
// while this one publishes, up to two batches ahead: the raw form of the two-process shape's
// `ahead:2` (items_per_second is the rate to compare).
void BM_RawRabbitMqLoop_Publish100Confirmed_Consume100(benchmark::State& state) {
  bench::RawLoop loop;
  loop.library_properties = state.range(0) != 0;
  const bool pipelined = state.range(1) != 0;
  if (!loop.setup()) return state.SkipWithError("no broker (WHIZBANG_AMQP_URL)");
  const CpuPerMessage cpu;
  if (!pipelined) {
    for (auto _ : state) {
      if (!loop.publish(100) || !loop.consume(100)) return state.SkipWithError("broker error");
    }
    cpu.report(state, state.iterations() * 100);
    state.SetItemsProcessed(state.iterations() * 100);
    return;
  }
  constexpr std::int64_t kAhead = 2 * 100;
  std::mutex mutex;
  std::condition_variable changed;
  std::int64_t consumed = 0;
  std::int64_t wanted = 0;  // the consumer thread stops once it consumed this many
  bool failed = false;
  std::thread consumer([&] {
    for (;;) {
      {
        std::lock_guard lock(mutex);
        if (failed || (wanted > 0 && consumed >= wanted)) return;
      }
      timeval poll_interval{0, 100'000};
      const bool got = loop.consume_one(&poll_interval);
      std::lock_guard lock(mutex);
      if (got) ++consumed;
      changed.notify_all();
    }
  });
  std::int64_t published = 0;
  for (auto _ : state) {
    if (!loop.publish(100)) {
      state.SkipWithError("broker error");
      break;
    }
    published += 100;
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return consumed >= published - kAhead; });
  }
  std::int64_t handled = 0;
  {
    std::unique_lock lock(mutex);
    handled = consumed;  // what crossed while the clock ran
    wanted = std::max<std::int64_t>(published, 1);
    if (!changed.wait_for(lock, std::chrono::seconds(60), [&] { return consumed >= published; })) {
      failed = true;
    }
  }
  consumer.join();
  cpu.report(state, published);
  state.SetItemsProcessed(handled);
}
BENCHMARK(BM_RawRabbitMqLoop_Publish100Confirmed_Consume100)
    ->ArgNames({"library_properties", "pipelined"})
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({0, 1})
    ->Args({1, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
