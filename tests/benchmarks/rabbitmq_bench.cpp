// RabbitMqTransport against a raw rabbitmq-c loop doing the same broker work, same broker, same
// run (800-byte persistent messages, a durable queue, publisher confirms, manual acks).
//
// - Throughput: publish a batch of 100 and wait for the broker's confirms, then consume those
//   100 with manual acknowledgements (prefetch 100). Raw: one connection publishes (mandatory,
//   confirm select, frames read until the ack covers the last tag), another consumes
//   (basic.consume, an ack per message). Library: RabbitMqTransport::publish of the batch, and a
//   subscription whose handler counts deliveries (acknowledged after it returns).
// - Latency: one message at a time, publish until delivered to the consumer, p50 and p99 as
//   counters (microseconds).
//
// Needs a broker: WHIZBANG_AMQP_URL, e.g.
//   tests/support/rabbitmq-server.sh up /tmp/wh-rmq-bench 46000
//   WHIZBANG_AMQP_URL=amqp://guest:guest@127.0.0.1:46000 taskset -c 1
//   build/tests/benchmarks/rabbitmq_bench
#include <amqp.h>
#include <amqp_tcp_socket.h>
#include <benchmark/benchmark.h>
#include <sys/time.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "whizbang/ids/message_id.hpp"
#include "whizbang/transport/rabbitmq/rabbitmq_transport.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kBatch = 100;
const std::string kBody(800, 'x');

std::string unique(const char* prefix) {
  static const unsigned run = std::random_device{}();
  static int counter = 0;
  return std::string(prefix) + "-" + std::to_string(run % 100000) + "-" + std::to_string(++counter);
}

whizbang::RabbitMqOptions options() {
  auto options = whizbang::rabbitmq_options_from_url("");
  return options.ok() ? *options : whizbang::RabbitMqOptions{};
}

// A raw rabbitmq-c connection with channel 1 open.
struct RawConnection {
  amqp_connection_state_t state = amqp_new_connection();
  bool ok = false;
  explicit RawConnection(const whizbang::RabbitMqOptions& o) {
    amqp_socket_t* socket = amqp_tcp_socket_new(state);
    ok = amqp_socket_open(socket, o.host.c_str(), o.port) == AMQP_STATUS_OK &&
         amqp_login(state, o.vhost.c_str(), 0, 131072, 0, AMQP_SASL_METHOD_PLAIN, o.user.c_str(),
                    o.password.c_str())
                 .reply_type == AMQP_RESPONSE_NORMAL;
    if (ok) {
      amqp_channel_open(state, 1);
      ok = amqp_get_rpc_reply(state).reply_type == AMQP_RESPONSE_NORMAL;
    }
  }
  ~RawConnection() {
    if (ok) {
      amqp_channel_close(state, 1, AMQP_REPLY_SUCCESS);
      amqp_connection_close(state, AMQP_REPLY_SUCCESS);
    }
    amqp_destroy_connection(state);
  }
};

// The raw loop's side: a durable topic exchange and queue, a confirming publisher, a consumer.
struct RawLoop {
  whizbang::RabbitMqOptions o = options();
  RawConnection publisher{o};
  RawConnection consumer{o};
  std::string exchange = unique("bench.raw");
  std::string queue = unique("bench-raw");
  std::uint64_t next_tag = 1;

  bool setup() {
    if (!publisher.ok || !consumer.ok) return false;
    amqp_exchange_declare(publisher.state, 1, amqp_cstring_bytes(exchange.c_str()),
                          amqp_cstring_bytes("topic"), 0, 1, 0, 0, amqp_empty_table);
    amqp_queue_declare(publisher.state, 1, amqp_cstring_bytes(queue.c_str()), 0, 1, 0, 0,
                       amqp_empty_table);
    amqp_queue_bind(publisher.state, 1, amqp_cstring_bytes(queue.c_str()),
                    amqp_cstring_bytes(exchange.c_str()), amqp_cstring_bytes("#"),
                    amqp_empty_table);
    amqp_confirm_select(publisher.state, 1);
    amqp_basic_qos(consumer.state, 1, 0, kBatch, 0);
    amqp_basic_consume(consumer.state, 1, amqp_cstring_bytes(queue.c_str()), amqp_empty_bytes, 0, 0,
                       0, amqp_empty_table);
    return amqp_get_rpc_reply(consumer.state).reply_type == AMQP_RESPONSE_NORMAL;
  }

  bool publish(int count) {
    for (int i = 0; i < count; ++i) {
      const std::string id = whizbang::MessageId::mint().to_string();
      amqp_basic_properties_t props{};
      props._flags =
          AMQP_BASIC_DELIVERY_MODE_FLAG | AMQP_BASIC_MESSAGE_ID_FLAG | AMQP_BASIC_CONTENT_TYPE_FLAG;
      props.delivery_mode = AMQP_DELIVERY_PERSISTENT;
      props.message_id = amqp_cstring_bytes(id.c_str());
      props.content_type = amqp_cstring_bytes("application/json");
      if (amqp_basic_publish(publisher.state, 1, amqp_cstring_bytes(exchange.c_str()),
                             amqp_cstring_bytes("bench.raw"), 1, 0, &props,
                             amqp_cstring_bytes(kBody.c_str())) != AMQP_STATUS_OK) {
        return false;
      }
    }
    const std::uint64_t last = next_tag + static_cast<std::uint64_t>(count) - 1;
    next_tag = last + 1;
    for (;;) {
      amqp_frame_t frame;
      if (amqp_simple_wait_frame(publisher.state, &frame) != AMQP_STATUS_OK) return false;
      if (frame.frame_type == AMQP_FRAME_METHOD &&
          frame.payload.method.id == AMQP_BASIC_ACK_METHOD) {
        const auto* ack = static_cast<amqp_basic_ack_t*>(frame.payload.method.decoded);
        if (ack->delivery_tag >= last) return true;
      }
    }
  }

  bool consume(int count) {
    for (int i = 0; i < count; ++i) {
      amqp_envelope_t envelope;
      amqp_maybe_release_buffers(consumer.state);
      if (amqp_consume_message(consumer.state, &envelope, nullptr, 0).reply_type !=
          AMQP_RESPONSE_NORMAL) {
        return false;
      }
      amqp_basic_ack(consumer.state, 1, envelope.delivery_tag, 0);
      amqp_destroy_envelope(&envelope);
    }
    return true;
  }
};

// The library's side: a transport, and a subscription that counts deliveries.
struct LibraryLoop {
  whizbang::RabbitMqTransport transport{options()};
  std::string exchange = unique("bench.lib");
  std::mutex mutex;
  std::condition_variable arrived;
  int delivered = 0;
  std::unique_ptr<whizbang::TransportSubscription> subscription;

  bool setup() {
    auto subscribed =
        transport.subscribe(unique("bench-lib"), {{exchange, ""}},
                            [this](const whizbang::TransportDestination&,
                                   std::span<const whizbang::TransportMessage> batch) {
                              std::lock_guard lock(mutex);
                              delivered += static_cast<int>(batch.size());
                              arrived.notify_all();
                              return absl::OkStatus();
                            });
    if (!subscribed.ok()) return false;
    subscription = *std::move(subscribed);
    return transport.is_ready();
  }

  static std::vector<whizbang::TransportMessage> batch(int count) {
    std::vector<whizbang::TransportMessage> messages(static_cast<std::size_t>(count));
    for (auto& message : messages) {
      message.message_id = whizbang::MessageId::mint();
      message.message_type = "bench::events::Tick";
      message.envelope_json = kBody;
      message.is_event = true;
    }
    return messages;
  }

  bool publish(const std::vector<whizbang::TransportMessage>& messages) {
    return transport.publish({exchange, "bench.events.tick", {}}, messages).ok();
  }

  void wait_for(int total) {
    std::unique_lock lock(mutex);
    arrived.wait(lock, [&] { return delivered >= total; });
  }
};

void report_latency(benchmark::State& state, std::vector<double>& micros) {
  if (micros.empty()) return;
  std::sort(micros.begin(), micros.end());
  state.counters["p50_us"] = micros[micros.size() / 2];
  state.counters["p99_us"] = micros[std::min(micros.size() - 1, micros.size() * 99 / 100)];
}

void BM_Raw_Publish100Confirmed_Consume100(benchmark::State& state) {
  RawLoop loop;
  if (!loop.setup()) return state.SkipWithError("no broker (WHIZBANG_AMQP_URL)");
  for (auto _ : state) {
    if (!loop.publish(kBatch) || !loop.consume(kBatch)) return state.SkipWithError("broker error");
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

void BM_Transport_Publish100Confirmed_Consume100(benchmark::State& state) {
  LibraryLoop loop;
  if (!loop.setup()) return state.SkipWithError("no broker (WHIZBANG_AMQP_URL)");
  int total = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const auto messages = LibraryLoop::batch(kBatch);
    state.ResumeTiming();
    if (!loop.publish(messages)) return state.SkipWithError("publish failed");
    total += kBatch;
    loop.wait_for(total);
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

void BM_Raw_OneMessage_PublishToDelivery(benchmark::State& state) {
  RawLoop loop;
  if (!loop.setup()) return state.SkipWithError("no broker (WHIZBANG_AMQP_URL)");
  std::vector<double> micros;
  for (auto _ : state) {
    const auto start = Clock::now();
    if (!loop.publish(1) || !loop.consume(1)) return state.SkipWithError("broker error");
    micros.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  report_latency(state, micros);
}

void BM_Transport_OneMessage_PublishToDelivery(benchmark::State& state) {
  LibraryLoop loop;
  if (!loop.setup()) return state.SkipWithError("no broker (WHIZBANG_AMQP_URL)");
  std::vector<double> micros;
  int total = 0;
  for (auto _ : state) {
    const auto message = LibraryLoop::batch(1);
    const auto start = Clock::now();
    if (!loop.publish(message)) return state.SkipWithError("publish failed");
    loop.wait_for(++total);
    micros.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  report_latency(state, micros);
}

BENCHMARK(BM_Raw_Publish100Confirmed_Consume100)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Transport_Publish100Confirmed_Consume100)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Raw_OneMessage_PublishToDelivery)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Transport_OneMessage_PublishToDelivery)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
