#include "rabbitmq/amqp_connection.hpp"

#include <amqp_ssl_socket.h>
#include <amqp_tcp_socket.h>
#include <sys/time.h>

#include <chrono>

namespace whizbang::rabbitmq {

timeval to_timeval(std::chrono::milliseconds duration) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(duration.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((duration.count() % 1000) * 1000);
  return tv;
}

namespace {

absl::Status status_for_reply_code(int code, std::string message) {
  switch (code) {
    case AMQP_ACCESS_REFUSED:
      return absl::PermissionDeniedError(std::move(message));
    case AMQP_NOT_FOUND:
      return absl::NotFoundError(std::move(message));
    case AMQP_PRECONDITION_FAILED:
    case AMQP_RESOURCE_LOCKED:
      return absl::FailedPreconditionError(std::move(message));
    default:
      return absl::UnavailableError(std::move(message));
  }
}

int reply_code_of(const amqp_method_t& method) {
  if (method.id == AMQP_CONNECTION_CLOSE_METHOD) {
    return static_cast<const amqp_connection_close_t*>(method.decoded)->reply_code;
  }
  if (method.id == AMQP_CHANNEL_CLOSE_METHOD) {
    return static_cast<const amqp_channel_close_t*>(method.decoded)->reply_code;
  }
  return 0;
}

absl::Status configure_tls(amqp_socket_t* socket, const RabbitMqTlsOptions& tls) {
  if (!tls.ca_cert_file.empty() &&
      amqp_ssl_socket_set_cacert(socket, tls.ca_cert_file.c_str()) != AMQP_STATUS_OK) {
    return absl::InvalidArgumentError("cannot read the CA certificate '" + tls.ca_cert_file + "'");
  }
  if (!tls.client_cert_file.empty() &&
      amqp_ssl_socket_set_key(socket, tls.client_cert_file.c_str(), tls.client_key_file.c_str()) !=
          AMQP_STATUS_OK) {
    return absl::InvalidArgumentError("cannot read the client certificate '" +
                                      tls.client_cert_file + "' or its key");
  }
  amqp_ssl_socket_set_verify_peer(socket, tls.verify_peer ? 1 : 0);
  amqp_ssl_socket_set_verify_hostname(socket, tls.verify_hostname ? 1 : 0);
  return absl::OkStatus();
}

}  // namespace

std::string describe_close(const amqp_method_t& method) {
  amqp_bytes_t text{};
  int code = reply_code_of(method);
  if (method.id == AMQP_CONNECTION_CLOSE_METHOD) {
    text = static_cast<const amqp_connection_close_t*>(method.decoded)->reply_text;
  } else if (method.id == AMQP_CHANNEL_CLOSE_METHOD) {
    text = static_cast<const amqp_channel_close_t*>(method.decoded)->reply_text;
  }
  return std::to_string(code) + " " + std::string(view_of(text));
}

absl::StatusOr<std::unique_ptr<AmqpConnection>> AmqpConnection::open(
    const RabbitMqOptions& options) {
  amqp_connection_state_t state = amqp_new_connection();
  if (state == nullptr) return absl::ResourceExhaustedError("amqp_new_connection failed");
  std::unique_ptr<AmqpConnection> connection(new AmqpConnection(state, options.describe()));
  connection->tls_ = options.tls.enabled;
  const std::string& endpoint = connection->endpoint_;

  amqp_socket_t* socket =
      options.tls.enabled ? amqp_ssl_socket_new(state) : amqp_tcp_socket_new(state);
  if (socket == nullptr) return absl::ResourceExhaustedError("cannot create a socket");
  if (options.tls.enabled) {
    if (absl::Status status = configure_tls(socket, options.tls); !status.ok()) return status;
  }
  timeval connect_timeout = to_timeval(options.connect_timeout);
  if (int rc =
          amqp_socket_open_noblock(socket, options.host.c_str(), options.port, &connect_timeout);
      rc != AMQP_STATUS_OK) {
    return absl::UnavailableError("cannot connect to " + endpoint + ": " + amqp_error_string2(rc));
  }
  timeval rpc_timeout = to_timeval(options.rpc_timeout);
  amqp_set_handshake_timeout(state, &rpc_timeout);
  amqp_set_rpc_timeout(state, &rpc_timeout);

  amqp_table_entry_t property;
  property.key = amqp_cstring_bytes("connection_name");
  property.value.kind = AMQP_FIELD_KIND_UTF8;
  property.value.value.bytes = bytes_of(options.connection_name);
  amqp_table_t client_properties{1, &property};
  amqp_rpc_reply_t login = amqp_login_with_properties(
      state, options.vhost.c_str(), /*channel_max=*/0, /*frame_max=*/131072,
      static_cast<int>(options.heartbeat.count()), &client_properties, AMQP_SASL_METHOD_PLAIN,
      options.user.c_str(), options.password.c_str());
  if (login.reply_type != AMQP_RESPONSE_NORMAL) {
    connection->broken_ = true;
    if (login.reply_type == AMQP_RESPONSE_SERVER_EXCEPTION) {
      return status_for_reply_code(
          reply_code_of(login.reply),
          "login to " + endpoint + " refused: " + describe_close(login.reply));
    }
    // RabbitMQ closes the socket on bad credentials before any close method.
    return absl::UnavailableError("login to " + endpoint + " failed (" +
                                  amqp_error_string2(login.library_error) +
                                  "; wrong user or password, or no access to the vhost?)");
  }
  connection->logged_in_ = true;
  amqp_channel_open(state, kChannel);
  if (absl::Status status = connection->check_rpc("channel.open"); !status.ok()) return status;
  return connection;
}

AmqpConnection::~AmqpConnection() {
  if (logged_in_ && !broken_) {
    amqp_channel_close(state_, kChannel, AMQP_REPLY_SUCCESS);
    amqp_connection_close(state_, AMQP_REPLY_SUCCESS);
  }
  amqp_destroy_connection(state_);
}

absl::Status AmqpConnection::fail(absl::Status status) {
  broken_ = true;
  return status;
}

absl::Status AmqpConnection::check(int status, std::string_view what) {
  if (status == AMQP_STATUS_OK) return absl::OkStatus();
  return fail(absl::UnavailableError(std::string(what) + " on " + endpoint_ + ": " +
                                     amqp_error_string2(status)));
}

absl::Status AmqpConnection::check_rpc(std::string_view what) {
  const amqp_rpc_reply_t reply = amqp_get_rpc_reply(state_);
  switch (reply.reply_type) {
    case AMQP_RESPONSE_NORMAL:
      return absl::OkStatus();
    case AMQP_RESPONSE_SERVER_EXCEPTION:
      if (reply.reply.id == AMQP_CONNECTION_CLOSE_METHOD) {
        amqp_connection_close_ok_t ok{};
        amqp_send_method(state_, 0, AMQP_CONNECTION_CLOSE_OK_METHOD, &ok);
      } else if (reply.reply.id == AMQP_CHANNEL_CLOSE_METHOD) {
        amqp_channel_close_ok_t ok{};
        channel_closed_ =
            amqp_send_method(state_, kChannel, AMQP_CHANNEL_CLOSE_OK_METHOD, &ok) == AMQP_STATUS_OK;
      }
      return fail(status_for_reply_code(
          reply_code_of(reply.reply),
          std::string(what) + " on " + endpoint_ + " refused: " + describe_close(reply.reply)));
    case AMQP_RESPONSE_LIBRARY_EXCEPTION:
      return fail(absl::UnavailableError(std::string(what) + " on " + endpoint_ + ": " +
                                         amqp_error_string2(reply.library_error)));
    default:
      return fail(absl::UnavailableError(std::string(what) + " on " + endpoint_ + ": no reply"));
  }
}

absl::Status AmqpConnection::answer_close(const amqp_frame_t& frame) {
  const amqp_method_t& method = frame.payload.method;
  if (method.id == AMQP_CONNECTION_CLOSE_METHOD) {
    amqp_connection_close_ok_t ok{};
    amqp_send_method(state_, 0, AMQP_CONNECTION_CLOSE_OK_METHOD, &ok);
  } else if (method.id == AMQP_CHANNEL_CLOSE_METHOD) {
    amqp_channel_close_ok_t ok{};
    amqp_send_method(state_, frame.channel, AMQP_CHANNEL_CLOSE_OK_METHOD, &ok);
  }
  return fail(status_for_reply_code(
      reply_code_of(method),
      "the broker closed the " +
          std::string(method.id == AMQP_CHANNEL_CLOSE_METHOD ? "channel" : "connection") + " on " +
          endpoint_ + ": " + describe_close(method)));
}

absl::Status AmqpConnection::reopen_channel() {
  if (!channel_closed_) {
    return absl::FailedPreconditionError("the channel on " + endpoint_ +
                                         " was not closed alone: reconnect");
  }
  channel_closed_ = false;
  amqp_channel_open(state_, kChannel);
  if (absl::Status status = check_rpc("channel.open"); !status.ok()) return status;
  broken_ = false;
  return absl::OkStatus();
}

}  // namespace whizbang::rabbitmq
