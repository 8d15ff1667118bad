#include "whizbang/transport/rabbitmq/rabbitmq_transport.hpp"

#include <algorithm>

#include "rabbitmq/confirmed_publisher.hpp"
#include "rabbitmq/queue_consumer.hpp"
#include "whizbang/observability/logging.hpp"

namespace whizbang {
namespace {

// Often enough that the broker sees traffic well within two heartbeats.
std::chrono::milliseconds keep_alive_interval(const RabbitMqOptions& options) {
  if (options.heartbeat.count() == 0) return std::chrono::milliseconds(1000);
  return std::min<std::chrono::milliseconds>(std::chrono::milliseconds(1000),
                                             options.heartbeat / 4);
}

}  // namespace

RabbitMqTransport::RabbitMqTransport(RabbitMqOptions options)
    : options_(std::move(options)),
      publisher_(std::make_unique<rabbitmq::ConfirmedPublisher>(options_)) {
  {
    std::lock_guard lock(publisher_mutex_);
    absl::Status connected = publisher_->connect();
    set_ready(connected.ok(), connected);
  }
  keeper_ = std::thread([this] { keep_alive(); });
}

RabbitMqTransport::~RabbitMqTransport() {
  {
    std::lock_guard lock(keeper_mutex_);
    stopping_ = true;
  }
  keeper_wake_.notify_all();
  keeper_.join();
  std::lock_guard lock(publisher_mutex_);
  publisher_.reset();
}

void RabbitMqTransport::set_ready(bool ready, const absl::Status& why) {
  const bool was = ready_.exchange(ready);
  if (ready && !was) {
    log(options_.logger, spdlog::level::info, log_events::kTransportConnected,
        "publisher connected to {}", options_.describe());
  } else if (!ready && (was || !why.ok())) {
    log(options_.logger, was ? spdlog::level::warn : spdlog::level::debug,
        log_events::kTransportConnectionLost, "publisher connection to {} is down: {}",
        options_.describe(), why.message());
  }
}

absl::Status RabbitMqTransport::publish(const TransportDestination& destination,
                                        std::span<const TransportMessage> batch) {
  std::lock_guard lock(publisher_mutex_);
  absl::Status status = publisher_->publish(destination, batch);
  // The keeper thread reconnects; the next publish() would too.
  if (!publisher_->connected()) set_ready(false, status);
  return status;
}

absl::StatusOr<std::unique_ptr<TransportSubscription>> RabbitMqTransport::subscribe(
    std::string_view service_name, std::vector<TransportBinding> bindings,
    DeliveryHandler handler) {
  absl::StatusOr<std::unique_ptr<rabbitmq::QueueConsumer>> consumer =
      rabbitmq::QueueConsumer::start(options_, std::string(service_name), std::move(bindings),
                                     std::move(handler));
  if (!consumer.ok()) return consumer.status();
  return std::unique_ptr<TransportSubscription>(*std::move(consumer));
}

void RabbitMqTransport::keep_alive() {
  BackoffSequence reconnect(options_.reconnect_backoff());
  for (;;) {
    Backoff::Duration wait = keep_alive_interval(options_);
    {
      std::lock_guard lock(publisher_mutex_);
      absl::Status status =
          publisher_->connected() ? publisher_->service_idle() : publisher_->connect();
      set_ready(publisher_->connected(), status);
      if (publisher_->connected()) {
        reconnect.reset();
      } else {
        wait = reconnect.next();
      }
    }
    std::unique_lock lock(keeper_mutex_);
    if (keeper_wake_.wait_for(lock, wait, [&] { return stopping_; })) return;
  }
}

}  // namespace whizbang
