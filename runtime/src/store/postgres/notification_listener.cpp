#include "postgres/notification_listener.hpp"

#include <libpq-fe.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <algorithm>
#include <chrono>

#include "whizbang/retry/backoff.hpp"

namespace whizbang::postgres {
namespace {

using Conn = NotificationListener::Conn;

// Connects and subscribes; null when either fails.
Conn listen(const std::string& conninfo, const std::string& channel) {
  Conn conn(PQconnectdb(conninfo.c_str()), &PQfinish);
  if (PQstatus(conn.get()) != CONNECTION_OK) return Conn(nullptr, &PQfinish);
  char* quoted = PQescapeIdentifier(conn.get(), channel.data(), channel.size());
  if (quoted == nullptr) return Conn(nullptr, &PQfinish);
  const std::string sql = std::string("LISTEN ") + quoted;
  PQfreemem(quoted);
  PGresult* result = PQexec(conn.get(), sql.c_str());
  const bool ok = PQresultStatus(result) == PGRES_COMMAND_OK;
  PQclear(result);
  return ok ? std::move(conn) : Conn(nullptr, &PQfinish);
}

}  // namespace

NotificationListener::NotificationListener(std::string conninfo, std::string channel, Uuid self,
                                           OnNotify on_notify)
    : conninfo_(std::move(conninfo)),
      channel_(std::move(channel)),
      self_(self),
      on_notify_(std::move(on_notify)),
      stop_fd_(::eventfd(0, EFD_CLOEXEC)) {
  // Subscribed before the constructor returns (when the server answers): every commit after it
  // is heard.
  thread_ =
      std::thread([this, conn = listen(conninfo_, channel_)]() mutable { run(std::move(conn)); });
}

NotificationListener::~NotificationListener() {
  const std::uint64_t one = 1;
  (void)!::write(stop_fd_, &one, sizeof(one));
  thread_.join();
  ::close(stop_fd_);
}

std::string NotificationListener::payload(const Uuid& sender, const CommitInfo& written) {
  return sender.to_string() + ":" + (written.outbox_written ? "o" : "") +
         (written.inbox_written ? "i" : "") + (written.perspectives_written ? "p" : "");
}

std::optional<std::pair<Uuid, CommitInfo>> NotificationListener::parse(std::string_view payload) {
  const std::size_t colon = payload.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  absl::StatusOr<Uuid> sender = Uuid::parse(payload.substr(0, colon));
  if (!sender.ok()) return std::nullopt;
  const std::string_view kinds = payload.substr(colon + 1);
  CommitInfo written;
  written.outbox_written = kinds.find('o') != std::string_view::npos;
  written.inbox_written = kinds.find('i') != std::string_view::npos;
  written.perspectives_written = kinds.find('p') != std::string_view::npos;
  return std::make_pair(*sender, written);
}

void NotificationListener::run(Conn conn) {
  // Reconnect waits: 100 ms, doubling up to 5 s; from 100 ms again once listening.
  BackoffSequence reconnect(Backoff{.initial = std::chrono::milliseconds(100),
                                    .factor = 2,
                                    .cap = std::chrono::seconds(5),
                                    .jitter = 0});
  while (true) {
    while (conn != nullptr) {
      pollfd fds[2] = {{PQsocket(conn.get()), POLLIN, 0}, {stop_fd_, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) continue;  // EINTR
      if ((fds[1].revents & POLLIN) != 0) return;
      if (PQconsumeInput(conn.get()) == 0) break;  // the connection dropped
      while (PGnotify* notify = PQnotifies(conn.get())) {
        const auto parsed = parse(notify->extra);
        PQfreemem(notify);
        if (parsed && parsed->first != self_) on_notify_(parsed->second);
      }
    }
    // Wait before the next attempt, unless told to stop.
    pollfd stop = {stop_fd_, POLLIN, 0};
    const auto pause = std::chrono::duration_cast<std::chrono::milliseconds>(reconnect.next());
    if (::poll(&stop, 1, static_cast<int>(pause.count())) > 0) return;
    conn = listen(conninfo_, channel_);
    if (conn != nullptr) {
      reconnect.reset();
      // What was committed while the connection was down was announced to no one here: report
      // every kind of work once, so the workers (and read-your-writes waits) look.
      on_notify_({.outbox_written = true, .inbox_written = true, .perspectives_written = true});
    }
  }
}

}  // namespace whizbang::postgres
