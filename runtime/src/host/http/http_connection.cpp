#include "http/http_connection.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <utility>
#include <variant>

namespace whizbang::http {
namespace {

// Tells a deferred answer's connection: one number per deferred request, never reused.
std::atomic<std::uint64_t> next_ticket{1};

}  // namespace

HttpConnection::HttpConnection(int fd, std::string client, const HttpLimits& limits,
                               const HttpRoutes& routes, HttpWorker& worker, Clock::time_point now)
    : fd_(fd),
      client_(std::move(client)),
      limits_(limits),
      routes_(routes),
      worker_(worker),
      deadline_(now + limits.head_deadline),  // a first request's head: from accept
      parser_(limits) {}

short HttpConnection::wanted_events() const {
  switch (phase_) {
    case Phase::Writing:
      return POLLOUT;
    case Phase::Waiting:
      return 0;  // (poll() still reports a hang-up or an error)
    default:
      return POLLIN;
  }
}

void HttpConnection::on_ready(short revents, Clock::time_point now) {
  if (closed()) return;
  if ((revents & (POLLERR | POLLNVAL)) != 0 ||
      (phase_ == Phase::Waiting && (revents & POLLHUP) != 0)) {
    close();  // (a deferred answer for it is dropped)
    return;
  }
  if (phase_ == Phase::Waiting) return;
  if (phase_ != Phase::Writing) receive(now);
  advance(now);
}

void HttpConnection::on_deadline(Clock::time_point now) {
  switch (phase_) {
    case Phase::AwaitingRequest:
      close();
      return;
    case Phase::ReadingHead:
      if (input_.empty()) {  // never sent a byte: nothing to answer
        close();
        return;
      }
      respond(HttpResponse::text(408, "request head not received in time\n"), false, true, now);
      advance(now);
      return;
    case Phase::ReadingBody:
      respond(HttpResponse::text(408, "request body not received in time\n"), false, true, now);
      advance(now);
      return;
    case Phase::Waiting:
      respond(HttpResponse::text(503, "the request took too long\n"), false, true, now);
      advance(now);
      return;
    case Phase::Writing:
      abort();
      return;
  }
}

void HttpConnection::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void HttpConnection::receive(Clock::time_point now) {
  // Never more than a head's worth (a longer head fails at the limit), or than the body a
  // deferred route takes: what follows it stays in the socket until it is answered.
  const std::size_t wanted = phase_ == Phase::ReadingBody
                                 ? static_cast<std::size_t>(deferred_.content_length.value_or(0))
                                 : limits_.max_head_bytes;
  const std::size_t room = wanted - std::min(wanted, input_.size());
  if (room == 0) return;  // (the parser has already refused such a head)
  char chunk[16 * 1024];
  const ssize_t received = recv(fd_, chunk, std::min(room, sizeof chunk), 0);
  if (received > 0) {
    input_.append(chunk, static_cast<std::size_t>(received));
    largest_input_ = std::max(largest_input_, input_.size());
    if (phase_ == Phase::AwaitingRequest) {  // a later request's head: from its first byte
      phase_ = Phase::ReadingHead;
      deadline_ = now + limits_.head_deadline;
    }
  } else if (received == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
    close();  // the client is gone; a partial head has nobody to answer
  }
}

void HttpConnection::advance(Clock::time_point now) {
  while (!closed()) {
    if (phase_ == Phase::Writing) {
      if (!write_pending()) return;
      if (!keep_alive_after_write_) {
        close();
        return;
      }
      await_next_request(now);
    }
    if (phase_ == Phase::ReadingBody) {
      const auto length = static_cast<std::size_t>(deferred_.content_length.value_or(0));
      if (input_.size() < length) return;
      deferred_.body = input_.substr(0, length);
      input_.erase(0, length);
      defer(now);
      continue;
    }
    if (phase_ != Phase::ReadingHead || input_.empty()) return;
    switch (parser_.parse(input_)) {
      case HttpParseState::NeedMore:
        return;
      case HttpParseState::Failed: {
        std::string reason = parser_.failure().reason;
        reason.push_back('\n');
        respond(HttpResponse::text(parser_.failure().status, std::move(reason)), false, true, now);
        break;
      }
      case HttpParseState::Complete:
        answer_head(now);
        break;
    }
  }
}

void HttpConnection::answer_head(Clock::time_point now) {
  const HttpRequest& request = parser_.request();
  std::variant<const HttpRoute*, HttpResponse> route = routes_.route(request);
  if (const HttpRoute* const* found = std::get_if<const HttpRoute*>(&route);
      found != nullptr && (*found)->deferred) {
    deferred_ = request;
    deferred_route_ = *found;
    input_.erase(0, parser_.head_size());
    parser_.reset();
    if (deferred_.has_body()) {  // (the route takes it: route() refused it otherwise)
      phase_ = Phase::ReadingBody;
      deadline_ = now + limits_.body_deadline;
    } else {
      defer(now);
    }
    return;
  }
  const HttpResponse response =
      std::holds_alternative<HttpResponse>(route)
          ? std::get<HttpResponse>(std::move(route))
          : HttpRoutes::invoke(*std::get<const HttpRoute*>(route), request);
  // A body left unread puts the connection mid-message: it closes after the answer.
  const bool keep_alive = request.keep_alive && !request.has_body();
  const bool with_body = request.method != "HEAD";
  input_.erase(0, parser_.head_size());  // what remains is the next pipelined request
  parser_.reset();
  respond(response, keep_alive, with_body, now);
}

void HttpConnection::defer(Clock::time_point now) {
  deferred_.client = client_;
  ticket_ = next_ticket.fetch_add(1, std::memory_order_relaxed);
  if (!worker_.submit(ticket_, deferred_, *deferred_route_)) {
    ticket_ = 0;
    respond(HttpResponse::text(503, "busy: too many requests waiting\n"), deferred_.keep_alive,
            deferred_.method != "HEAD", now);
    return;
  }
  phase_ = Phase::Waiting;
  deadline_ = now + limits_.handler_deadline;
}

void HttpConnection::on_response(std::uint64_t ticket, const HttpResponse& response,
                                 Clock::time_point now) {
  if (closed() || phase_ != Phase::Waiting || ticket != ticket_) return;
  ticket_ = 0;
  respond(response, deferred_.keep_alive, deferred_.method != "HEAD", now);
  deferred_ = HttpRequest();
  advance(now);
}

void HttpConnection::respond(const HttpResponse& response, bool keep_alive, bool with_body,
                             Clock::time_point now) {
  output_ = serialize_response(response, keep_alive, with_body);
  written_ = 0;
  keep_alive_after_write_ = keep_alive;
  phase_ = Phase::Writing;
  deadline_ = now + limits_.write_deadline;
}

bool HttpConnection::write_pending() {
  while (written_ < output_.size()) {
    const ssize_t sent =
        send(fd_, output_.data() + written_, output_.size() - written_, MSG_NOSIGNAL);
    if (sent > 0) {
      written_ += static_cast<std::size_t>(sent);
    } else if (sent < 0 && errno == EINTR) {
      continue;
    } else {
      if (sent == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) close();
      return false;
    }
  }
  std::string().swap(output_);  // a large /metrics answer is not kept per idle connection
  written_ = 0;
  return true;
}

void HttpConnection::await_next_request(Clock::time_point now) {
  if (input_.empty()) {
    phase_ = Phase::AwaitingRequest;
    deadline_ = now + limits_.keep_alive_idle;
  } else {  // the next request's first bytes are already here
    phase_ = Phase::ReadingHead;
    deadline_ = now + limits_.head_deadline;
  }
}

void HttpConnection::abort() {
  if (fd_ < 0) return;
  const linger reset{1, 0};
  setsockopt(fd_, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
  close();
}

}  // namespace whizbang::http
