// NotificationListener: wakes this process when another process of the service commits work to
// the same PostgreSQL store (LISTEN/NOTIFY on a connection of its own).
//
// A writing transaction sends `pg_notify(channel, "<instance>:<kinds>")` before it commits, kinds
// being any of o (outbox), i (inbox), p (perspective work completed or failed); the server
// delivers it to every listener once the commit succeeds. The listener runs one thread
// that waits on its connection's socket and calls `on_notify` with what was written; it skips
// its own instance's notifications (those wake the process directly). It is subscribed when the
// constructor returns (if the server answered). When the connection drops it reconnects with
// backoff and then reports both kinds of work (notifications sent meanwhile were not heard), so
// the workers look once. Polling stays the fallback either way.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "whizbang/ids/uuid.hpp"
#include "whizbang/store/work_store.hpp"

struct pg_conn;  // libpq's PGconn

namespace whizbang::postgres {

class NotificationListener {
 public:
  using OnNotify = std::function<void(const CommitInfo&)>;

  using Conn = std::unique_ptr<pg_conn, void (*)(pg_conn*)>;

  // Starts listening on `channel` with a connection of its own.
  NotificationListener(std::string conninfo, std::string channel, Uuid self, OnNotify on_notify);
  NotificationListener(const NotificationListener&) = delete;
  NotificationListener& operator=(const NotificationListener&) = delete;
  // Stops the thread and closes the connection.
  ~NotificationListener();

  // What a notification carries: the sender and what it wrote.
  static std::string payload(const Uuid& sender, const CommitInfo& written);
  // nullopt for a payload of another shape.
  static std::optional<std::pair<Uuid, CommitInfo>> parse(std::string_view payload);

 private:
  // Waits for notifications on `conn` (null: not connected yet), reconnecting when it drops.
  void run(Conn conn);

  std::string conninfo_;
  std::string channel_;
  Uuid self_;
  OnNotify on_notify_;
  int stop_fd_ = -1;  // an eventfd: written once to stop the thread
  std::thread thread_;
};

}  // namespace whizbang::postgres
