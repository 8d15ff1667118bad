#include "rabbitmq/queue_consumer.hpp"

#include <sys/time.h>

#include <algorithm>
#include <map>
#include <random>

#include "fmt/format.h"
#include "rabbitmq/amqp_declare.hpp"
#include "rabbitmq/settle_spans.hpp"
#include "whizbang/observability/log_rate_limiter.hpp"
#include "whizbang/observability/logging.hpp"
#include "whizbang/retry/failure.hpp"
#include "whizbang/transport/command_inboxes.hpp"
#include "whizbang/transport/rabbitmq/rabbitmq_topology.hpp"

namespace whizbang::rabbitmq {
namespace {

std::string consumer_tag(std::string_view queue) {
  std::random_device random;
  std::uniform_int_distribution<unsigned long long> digits;
  return std::string(queue) + "-" + std::to_string(digits(random));
}

bool same_destination(const TransportDestination& a, const TransportDestination& b) {
  return a.address == b.address && a.routing_key == b.routing_key;
}

}  // namespace

absl::StatusOr<std::unique_ptr<QueueConsumer>> QueueConsumer::start(
    const RabbitMqOptions& options, std::string service_name,
    std::vector<TransportBinding> bindings, Transport::DeliveryHandler handler) {
  if (!handler) return absl::InvalidArgumentError("subscribe: handler is empty");
  if (service_name.empty()) return absl::InvalidArgumentError("subscribe: service name is empty");
  // One queue per exchange, bound once per pattern.
  std::map<std::string, Queue> by_exchange;
  for (TransportBinding& binding : bindings) {
    if (binding.address.empty()) {
      return absl::InvalidArgumentError("subscribe: a binding of '" + service_name +
                                        "' has no address (exchange)");
    }
    Queue& queue = by_exchange[binding.address];
    queue.exchange = binding.address;
    queue.name = rabbitmq_queue_name(service_name, binding.address);
    // A namespace command inbox is bound whole ('#'), as .NET binds it.
    queue.patterns.push_back(takes_whole_namespace_inbox(binding.address)
                                 ? std::string()
                                 : std::move(binding.routing_key));
  }
  std::vector<Queue> queues;
  for (auto& [exchange, queue] : by_exchange) queues.push_back(std::move(queue));
  std::unique_ptr<QueueConsumer> consumer(
      new QueueConsumer(options, std::move(service_name), std::move(queues), std::move(handler)));
  // Declared before subscribe() returns, so what is published from now on is kept for us.
  if (absl::Status status = consumer->connect(); !status.ok()) {
    if (!absl::IsUnavailable(status)) return status;
    consumer->disconnect(status);  // the broker is down: keep trying in the background
  }
  consumer->thread_ = std::thread([raw = consumer.get()] { raw->run(); });
  return consumer;
}

QueueConsumer::QueueConsumer(const RabbitMqOptions& options, std::string service_name,
                             std::vector<Queue> queues, Transport::DeliveryHandler handler)
    : options_(options),
      service_name_(std::move(service_name)),
      queues_(std::move(queues)),
      handler_(std::move(handler)),
      handler_backoff_(options_.reconnect_backoff()) {}

QueueConsumer::~QueueConsumer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_requested_.notify_all();
  if (thread_.joinable()) thread_.join();
  // Unacknowledged deliveries go back to the queue when the connection closes.
  connection_.reset();
}

absl::Status QueueConsumer::connect() {
  absl::StatusOr<std::unique_ptr<AmqpConnection>> opened = AmqpConnection::open(options_);
  if (!opened.ok()) return opened.status();
  std::unique_ptr<AmqpConnection> connection = *std::move(opened);
  amqp_basic_qos(connection->state(), AmqpConnection::kChannel, 0, options_.prefetch, 0);
  if (absl::Status status = connection->check_rpc("basic.qos"); !status.ok()) return status;
  for (const Queue& queue : queues_) {
    std::vector<std::string> keys;
    for (const std::string& pattern : queue.patterns) {
      std::string key = rabbitmq_binding_key(pattern);
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(std::move(key));
    }
    if (absl::Status status = declare_queue(*connection, queue.name, queue.exchange, keys,
                                            options_.dead_letter_exchanges);
        !status.ok()) {
      return status;
    }
    const std::string tag = consumer_tag(queue.name);
    amqp_basic_consume(connection->state(), AmqpConnection::kChannel, bytes_of(queue.name),
                       bytes_of(tag), /*no_local=*/0, /*no_ack=*/0, /*exclusive=*/0,
                       amqp_empty_table);
    if (absl::Status status = connection->check_rpc("basic.consume '" + queue.name + "'");
        !status.ok()) {
      return status;
    }
  }
  connection_ = std::move(connection);
  connected_ = true;
  return absl::OkStatus();
}

void QueueConsumer::disconnect(const absl::Status& why) {
  if (connected_.exchange(false) || connection_ == nullptr) {
    log(options_.logger, spdlog::level::warn, log_events::kTransportConnectionLost,
        "subscription of '{}' lost its broker connection: {}; reconnecting", service_name_,
        why.message());
  }
  connection_.reset();
  pending_.clear();  // not acknowledged: the broker redelivers them
}

bool QueueConsumer::pause(Backoff::Duration delay) {
  std::unique_lock lock(mutex_);
  return !stop_requested_.wait_for(lock, delay, [&] { return stopping_; });
}

void QueueConsumer::run() {
  BackoffSequence reconnect(options_.reconnect_backoff());
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
    }
    if (connection_ == nullptr) {
      if (absl::Status status = connect(); !status.ok()) {
        connection_.reset();
        if (!pause(reconnect.next())) return;
        continue;
      }
      reconnect.reset();
      log(options_.logger, spdlog::level::info, log_events::kTransportConnected,
          "subscription of '{}' connected to {}", service_name_, options_.describe());
    }
    // Deliveries are collected until the queue runs dry or a prefetch's worth is pending.
    absl::Status status = consume_one(/*wait=*/pending_.empty());
    if (absl::IsDeadlineExceeded(status)) {
      status = pending_.empty() ? absl::OkStatus() : flush();
    } else if (status.ok() && pending_.size() >= options_.prefetch) {
      status = flush();
    }
    if (!status.ok()) disconnect(status);
  }
}

absl::Status QueueConsumer::consume_one(bool wait) {
  amqp_connection_state_t state = connection_->state();
  amqp_maybe_release_buffers(state);
  timeval timeout =
      to_timeval(wait ? options_.consume_poll_interval : std::chrono::milliseconds(0));
  amqp_envelope_t envelope;
  const amqp_rpc_reply_t reply = amqp_consume_message(state, &envelope, &timeout, 0);
  if (reply.reply_type == AMQP_RESPONSE_NORMAL) {
    accept(envelope);
    amqp_destroy_envelope(&envelope);
    return absl::OkStatus();
  }
  if (reply.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION &&
      reply.library_error == AMQP_STATUS_TIMEOUT) {
    return absl::DeadlineExceededError("nothing to consume");
  }
  if (reply.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION &&
      reply.library_error == AMQP_STATUS_UNEXPECTED_STATE) {
    // Another frame is next: a close, a consumer cancel (queue deleted), or a stray ack.
    amqp_frame_t frame;
    timeval rpc_timeout = to_timeval(options_.rpc_timeout);
    const int rc = amqp_simple_wait_frame_noblock(state, &frame, &rpc_timeout);
    if (rc != AMQP_STATUS_OK) return connection_->check(rc, "reading a frame");
    if (frame.frame_type != AMQP_FRAME_METHOD) return absl::OkStatus();
    switch (frame.payload.method.id) {
      case AMQP_CONNECTION_CLOSE_METHOD:
      case AMQP_CHANNEL_CLOSE_METHOD:
        return connection_->answer_close(frame);
      case AMQP_BASIC_CANCEL_METHOD:
        return absl::UnavailableError("the broker cancelled the consumer (queue deleted?)");
      default:
        return absl::OkStatus();
    }
  }
  return connection_->fail(absl::UnavailableError(
      "consuming failed: " + std::string(amqp_error_string2(reply.library_error))));
}

void QueueConsumer::accept(const amqp_envelope_t& envelope) {
  absl::StatusOr<IncomingMessage> incoming =
      envelope.message.body.len > options_.max_message_bytes
          ? absl::InvalidArgumentError(fmt::format("{} bytes, over the limit of {}",
                                                   envelope.message.body.len,
                                                   options_.max_message_bytes))
          : decode_delivery(envelope, options_.inbox_exchange);
  if (!incoming.ok()) {
    // A claim check (FailedPrecondition) is held back apart from undecodable deliveries.
    if (const auto logged = rejection_log_.occurred(
            absl::IsFailedPrecondition(incoming.status()) ? "claim check" : "undecodable")) {
      log(options_.logger, spdlog::level::warn, log_events::kTransportDeliveryRejected,
          "subscription of '{}' rejected a delivery to the dead letters: {}{}", service_name_,
          incoming.status().message(), logged->suffix());
    }
    amqp_basic_nack(connection_->state(), AmqpConnection::kChannel, envelope.delivery_tag, 0,
                    /*requeue=*/0);
    return;
  }
  const auto queue = std::find_if(queues_.begin(), queues_.end(), [&](const Queue& q) {
    return q.exchange == incoming->destination.address;
  });
  const bool wanted =
      queue != queues_.end() &&
      std::any_of(queue->patterns.begin(), queue->patterns.end(), [&](const std::string& pattern) {
        return routing_key_matches(pattern, incoming->destination.routing_key);
      });
  if (!wanted) {
    amqp_basic_ack(connection_->state(), AmqpConnection::kChannel, envelope.delivery_tag, 0);
    return;
  }
  pending_.push_back({envelope.delivery_tag, *std::move(incoming)});
}

absl::Status QueueConsumer::flush() {
  std::vector<Delivery> deliveries = std::move(pending_);
  pending_.clear();
  amqp_connection_state_t state = connection_->state();
  std::size_t begin = 0;
  while (begin < deliveries.size()) {
    // One handler call per run of deliveries with the same exchange and routing key.
    std::size_t end = begin + 1;
    while (end < deliveries.size() && same_destination(deliveries[end].incoming.destination,
                                                       deliveries[begin].incoming.destination)) {
      ++end;
    }
    std::vector<TransportMessage> batch;
    batch.reserve(end - begin);
    // Moved: the deliveries are this flush's own; only their tags and destinations are read
    // afterwards.
    for (std::size_t i = begin; i < end; ++i) {
      batch.push_back(std::move(deliveries[i].incoming.message));
    }
    const TransportDestination& destination = deliveries[begin].incoming.destination;
    const DeliveryOutcome outcome = outcome_of_call("delivery to service '" + service_name_ + "'",
                                                    [&] { return handler_(destination, batch); });
    if (!outcome.ok()) {
      // This run and everything after it go back, in order, for a later attempt. A store that is
      // down fails every attempt alike: logged once, then once per interval with a count.
      if (const auto logged = requeue_log_.occurred(std::string(outcome.status.message()))) {
        log(options_.logger, spdlog::level::warn, log_events::kTransportDeliveryRequeued,
            "subscription of '{}' requeued {} deliveries: {}{}", service_name_,
            deliveries.size() - begin, outcome.status.message(), logged->suffix());
      }
      // One nack with `multiple` covers the rest: every delivery before this run is acked, and
      // what accept() settled itself was settled on arrival.
      SettleSpans settles(outcome, batch, destination, {}, /*requeued=*/true);
      const int rc = amqp_basic_nack(state, AmqpConnection::kChannel, deliveries.back().tag,
                                     /*multiple=*/1, /*requeue=*/1);
      if (rc != AMQP_STATUS_OK) {
        absl::Status failed = connection_->check(rc, "basic.nack");
        settles.end(failed);
        return failed;
      }
      pause(handler_backoff_.next());
      return absl::OkStatus();
    }
    if (absl::Status status =
            settle_run(outcome, batch, std::span(deliveries).subspan(begin, end - begin));
        !status.ok()) {
      return status;
    }
    handler_backoff_.reset();
    begin = end;
  }
  return absl::OkStatus();
}

absl::Status QueueConsumer::settle_run(const DeliveryOutcome& outcome,
                                       std::span<const TransportMessage> batch,
                                       std::span<const Delivery> run) {
  amqp_connection_state_t state = connection_->state();
  std::vector<bool> refused(run.size(), false);
  std::vector<const RefusedDelivery*> refusals;
  for (const RefusedDelivery& refusal : outcome.refused) {
    if (refusal.index >= run.size() || refused[refusal.index]) continue;
    refused[refusal.index] = true;
    refusals.push_back(&refusal);
  }
  SettleSpans settles(outcome, batch, run.front().incoming.destination, refused,
                      /*requeued=*/false);
  absl::Status settled = settle_deliveries(batch, run, refusals, refused, state);
  settles.end(settled);
  return settled;
}

absl::Status QueueConsumer::settle_deliveries(std::span<const TransportMessage> batch,
                                              std::span<const Delivery> run,
                                              const std::vector<const RefusedDelivery*>& refusals,
                                              const std::vector<bool>& refused,
                                              amqp_connection_state_t state) {
  for (const RefusedDelivery* refusal : refusals) {
    const TransportMessage& message = batch[refusal->index];
    // A sender may put any number of them on the broker: not a line each.
    if (const auto logged = rejection_log_.occurred("refused by the subscriber")) {
      log(options_.logger, spdlog::level::warn, log_events::kTransportDeliveryRejected,
          "subscription of '{}' rejected delivery {} ({}) to the dead letters: {}{}", service_name_,
          message.message_id, message.message_type, refusal->reason, logged->suffix());
    }
    const int rc = amqp_basic_nack(state, AmqpConnection::kChannel, run[refusal->index].tag,
                                   /*multiple=*/0, /*requeue=*/0);
    if (rc != AMQP_STATUS_OK) return connection_->check(rc, "basic.nack");
  }
  // One ack with `multiple` for the rest of the run, up to its last delivery not refused: the
  // channel's unsettled deliveries up to that tag are exactly those (earlier runs are acked, the
  // refused ones were just rejected, accept() settled what it kept not). An ack of a tag already
  // rejected would be a channel error.
  for (std::size_t i = run.size(); i-- > 0;) {
    if (refused[i]) continue;
    const int rc = amqp_basic_ack(state, AmqpConnection::kChannel, run[i].tag, /*multiple=*/1);
    if (rc != AMQP_STATUS_OK) return connection_->check(rc, "basic.ack");
    break;
  }
  return absl::OkStatus();
}

}  // namespace whizbang::rabbitmq
