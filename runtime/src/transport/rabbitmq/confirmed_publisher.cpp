#include "rabbitmq/confirmed_publisher.hpp"

#include <sys/time.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <vector>

#include "rabbitmq/amqp_declare.hpp"
#include "rabbitmq/amqp_message.hpp"
#include "rabbitmq/corked_writes.hpp"
#include "rabbitmq/publish_frames.hpp"
#include "whizbang/observability/logging.hpp"
#include "whizbang/transport/command_inboxes.hpp"

namespace whizbang::rabbitmq {
namespace {

using Clock = std::chrono::steady_clock;

timeval until(Clock::time_point deadline) {
  const auto left = std::max(Clock::duration::zero(), deadline - Clock::now());
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(left).count();
  return timeval{static_cast<time_t>(micros / 1000000), static_cast<suseconds_t>(micros % 1000000)};
}

}  // namespace

absl::Status ConfirmedPublisher::drop(absl::Status status) {
  connection_.reset();
  return status;
}

absl::Status ConfirmedPublisher::connect() {
  if (connected()) return absl::OkStatus();
  connection_.reset();
  declared_exchanges_.clear();
  absl::StatusOr<std::unique_ptr<AmqpConnection>> opened = AmqpConnection::open(options_);
  if (!opened.ok()) return opened.status();
  std::unique_ptr<AmqpConnection> connection = *std::move(opened);
  amqp_confirm_select(connection->state(), AmqpConnection::kChannel);
  if (absl::Status status = connection->check_rpc("confirm.select"); !status.ok()) return status;
  connection_ = std::move(connection);
  next_delivery_tag_ = 1;
  connected_at_ = Clock::now();
  return absl::OkStatus();
}

absl::Status ConfirmedPublisher::service_idle() {
  if (!connected()) return absl::OkStatus();
  amqp_connection_state_t state = connection_->state();
  for (;;) {
    amqp_frame_t frame;
    timeval now{0, 0};
    const int rc = amqp_simple_wait_frame_noblock(state, &frame, &now);
    if (rc == AMQP_STATUS_TIMEOUT) return absl::OkStatus();
    if (rc != AMQP_STATUS_OK) return drop(connection_->check(rc, "idle publisher connection"));
    if (frame.frame_type == AMQP_FRAME_METHOD &&
        (frame.payload.method.id == AMQP_CONNECTION_CLOSE_METHOD ||
         frame.payload.method.id == AMQP_CHANNEL_CLOSE_METHOD)) {
      return drop(connection_->answer_close(frame));
    }
    // Anything else (a late confirm of a batch that already failed) is of no use now.
  }
}

absl::Status ConfirmedPublisher::publish(const TransportDestination& destination,
                                         std::span<const TransportMessage> batch) {
  if (batch.empty()) return absl::OkStatus();
  if (absl::Status status = connect(); !status.ok()) return drop(status);
  if (!declared_exchanges_.contains(destination.address)) {
    if (absl::Status status = ensure_exchange(destination); !status.ok()) return status;
    declared_exchanges_.insert(destination.address);
  }
  const std::uint64_t first_tag = next_delivery_tag_;
  const absl::Status sent =
      connection_->tls() ? send_each(destination, batch) : send_together(destination, batch);
  if (!sent.ok()) return drop(sent);
  next_delivery_tag_ += batch.size();
  absl::Status confirmed = wait_for_confirms(batch, first_tag);
  if (connection_ != nullptr) amqp_maybe_release_buffers(connection_->state());
  return confirmed;
}

absl::Status ConfirmedPublisher::ensure_exchange(const TransportDestination& destination) {
  const auto required = destination.metadata.find(std::string(kRequireProvisionedEntity));
  if (required == destination.metadata.end() || required->second != "true") {
    absl::Status status = declare_exchange(*connection_, destination.address);
    return status.ok() ? status : drop(status);
  }
  // A command inbox is its handling service's to declare: declaring it here would let the
  // broker drop the command when no such service ever started.
  absl::Status exists = check_exchange_exists(*connection_, destination.address);
  if (exists.ok() || !absl::IsNotFound(exists)) return exists.ok() ? exists : drop(exists);
  // Only the channel was closed: open it again (in confirm mode), so the failure is this
  // batch's, not the connection's.
  absl::Status reopened = connection_->reopen_channel();
  if (reopened.ok()) {
    amqp_confirm_select(connection_->state(), AmqpConnection::kChannel);
    reopened = connection_->check_rpc("confirm.select");
  }
  if (!reopened.ok()) drop(reopened).IgnoreError();  // reconnects later; this batch fails anyway
  next_delivery_tag_ = 1;
  const auto ns = destination.metadata.find(std::string(kNamespaceHeader));
  return absl::NotFoundError(
      "no exchange '" + destination.address + "' on " + options_.describe() +
      ": no service handling commands of namespace '" +
      (ns == destination.metadata.end() ? std::string("?") : ns->second) +
      "' has declared its inbox yet, so the command stays in the outbox (docs/guide/"
      "13-rabbitmq.md, \"Command inboxes\")");
}

absl::Status ConfirmedPublisher::send_together(const TransportDestination& destination,
                                               std::span<const TransportMessage> batch) {
  amqp_connection_state_t state = connection_->state();
  PublishFrames frames(static_cast<std::size_t>(amqp_get_frame_max(state)));
  for (const TransportMessage& message : batch) {
    const OutgoingProperties properties(destination, message);
    if (absl::Status added = frames.add(AmqpConnection::kChannel, bytes_of(destination.address),
                                        bytes_of(destination.routing_key), /*mandatory=*/true,
                                        *properties.properties(), bytes_of(message.envelope_json));
        !added.ok()) {
      return added;
    }
  }
  return write_all(amqp_get_sockfd(state), frames.bytes(), Clock::now() + options_.confirm_timeout);
}

absl::Status ConfirmedPublisher::send_each(const TransportDestination& destination,
                                           std::span<const TransportMessage> batch) {
  // A batch leaves as one stream, not a push per message (corked_writes.hpp); uncorked before
  // a failure drops the connection.
  std::optional<CorkedWrites> corked;
  if (batch.size() > 1) corked.emplace(amqp_get_sockfd(connection_->state()));
  for (const TransportMessage& message : batch) {
    OutgoingProperties properties(destination, message);
    const int rc = amqp_basic_publish(
        connection_->state(), AmqpConnection::kChannel, bytes_of(destination.address),
        bytes_of(destination.routing_key), /*mandatory=*/1,
        /*immediate=*/0, properties.properties(), bytes_of(message.envelope_json));
    if (rc != AMQP_STATUS_OK) return connection_->check(rc, "basic.publish");
  }
  return absl::OkStatus();
}

absl::Status ConfirmedPublisher::wait_for_confirms(std::span<const TransportMessage> batch,
                                                   std::uint64_t first_tag) {
  amqp_connection_state_t state = connection_->state();
  std::vector<bool> confirmed(batch.size(), false);
  std::size_t unconfirmed = batch.size();
  absl::Status outcome = absl::OkStatus();
  // The batch's delivery tags are first_tag, first_tag + 1, …: a tag is an index. A `multiple`
  // confirm covers every tag up to its own; `lowest` is the first index it can still reach.
  std::size_t lowest = 0;
  auto confirm_one = [&](std::size_t i, bool acked) {
    if (confirmed[i]) return;
    confirmed[i] = true;
    --unconfirmed;
    if (!acked && outcome.ok()) {
      outcome = absl::UnavailableError("the broker refused (nack) message " +
                                       batch[i].message_id.to_string());
    }
  };
  auto confirm = [&](std::uint64_t tag, bool multiple, bool acked) {
    if (tag < first_tag) return;  // a late confirm of an earlier batch
    const std::size_t last = std::min<std::uint64_t>(tag - first_tag, batch.size() - 1);
    if (!multiple) {
      if (tag - first_tag < batch.size()) confirm_one(last, acked);
      return;
    }
    for (; lowest <= last; ++lowest) confirm_one(lowest, acked);
  };
  const Clock::time_point deadline = Clock::now() + options_.confirm_timeout;
  while (unconfirmed > 0) {
    if (Clock::now() >= deadline) {
      // Late confirms would arrive for tags we no longer track: start over on a new channel.
      return drop(
          absl::DeadlineExceededError("the broker did not confirm " + std::to_string(unconfirmed) +
                                      " of " + std::to_string(batch.size()) + " messages within " +
                                      std::to_string(options_.confirm_timeout.count()) + " ms"));
    }
    amqp_frame_t frame;
    timeval timeout = until(deadline);
    const int rc = amqp_simple_wait_frame_noblock(state, &frame, &timeout);
    if (rc == AMQP_STATUS_TIMEOUT) continue;
    if (rc != AMQP_STATUS_OK) return drop(connection_->check(rc, "waiting for publisher confirms"));
    if (frame.frame_type != AMQP_FRAME_METHOD) continue;
    switch (frame.payload.method.id) {
      case AMQP_BASIC_ACK_METHOD: {
        const auto* ack = static_cast<const amqp_basic_ack_t*>(frame.payload.method.decoded);
        confirm(ack->delivery_tag, ack->multiple != 0, /*acked=*/true);
        break;
      }
      case AMQP_BASIC_NACK_METHOD: {
        const auto* nack = static_cast<const amqp_basic_nack_t*>(frame.payload.method.decoded);
        confirm(nack->delivery_tag, nack->multiple != 0, /*acked=*/false);
        break;
      }
      case AMQP_BASIC_RETURN_METHOD: {
        // Unroutable (no queue bound): the header and body follow; the ack comes after.
        const auto* returned =
            static_cast<const amqp_basic_return_t*>(frame.payload.method.decoded);
        const std::string reason(view_of(returned->reply_text));
        amqp_message_t message;
        amqp_rpc_reply_t read = amqp_read_message(state, frame.channel, &message, 0);
        if (read.reply_type != AMQP_RESPONSE_NORMAL) {
          return drop(connection_->fail(
              absl::UnavailableError("cannot read a message the broker returned")));
        }
        std::string id;
        if (message.properties._flags & AMQP_BASIC_MESSAGE_ID_FLAG) {
          id = std::string(view_of(message.properties.message_id));
        }
        amqp_destroy_message(&message);
        const auto match = std::find_if(batch.begin(), batch.end(), [&](const TransportMessage& m) {
          return m.message_id.to_string() == id;
        });
        if (match == batch.end()) break;
        const std::string where = "exchange '" + std::string(view_of(returned->exchange)) +
                                  "' with routing key '" +
                                  std::string(view_of(returned->routing_key)) + "'";
        if (Clock::now() - connected_at_ < options_.unrouted_grace) {
          // Moments after a (re)connect the broker may still lack bindings it had before a
          // crash: nobody may be listening yet, or somebody may be and not be bound again yet.
          if (outcome.ok()) {
            outcome = mark_transport_settling(absl::UnavailableError(
                "no queue is bound to " + where + " (broker: " + reason +
                ") shortly after connecting: offered again while bindings come back"));
          }
        } else if (match->is_event) {
          // An event nobody subscribes to is dropped.
          log(options_.logger, spdlog::level::debug, log_events::kTransportEventUnrouted,
              "event {} ({}) dropped: no queue is bound to {}", id, match->message_type, where);
        } else if (outcome.ok()) {
          // A command must reach its one handler.
          outcome = absl::UnavailableError("no queue is bound to " + where + " (broker: " + reason +
                                           "): the command stays in the outbox");
        }
        break;
      }
      case AMQP_CHANNEL_CLOSE_METHOD:
      case AMQP_CONNECTION_CLOSE_METHOD:
        return drop(connection_->answer_close(frame));
      default:
        break;
    }
  }
  return outcome;
}

}  // namespace whizbang::rabbitmq
