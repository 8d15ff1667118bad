// Messages and receptors for dispatch_bench (parsed by whizbang-gen).
#pragma once

#include <cstdint>
#include <tuple>

#include <whizbang/whizbang.hpp>

namespace bench {

struct Counter {
  std::int64_t value = 0;
};

struct Ping : whizbang::Event {
  std::int64_t n = 0;
};
struct Pong : whizbang::Event {
  std::int64_t n = 0;
};
struct Serve : whizbang::Command {
  std::int64_t n = 0;
};
// Its destination ("customeraddresschanged", 22 characters) is longer than a std::string keeps
// inline: what a receipt naming it costs.
struct CustomerAddressChanged : whizbang::Event {
  std::int64_t n = 0;
};

class PingReceptor : public whizbang::Receptor<Ping> {
 public:
  explicit PingReceptor(Counter& counter) : counter_(counter) {}
  void handle(const Ping& ping) { counter_.value += ping.n; }

 private:
  Counter& counter_;
};

class PongReceptor : public whizbang::Receptor<Pong> {
 public:
  explicit PongReceptor(Counter& counter) : counter_(counter) {}
  void handle(const Pong& pong) { counter_.value += pong.n; }

 private:
  Counter& counter_;
};

class CustomerAddressReceptor : public whizbang::Receptor<CustomerAddressChanged> {
 public:
  explicit CustomerAddressReceptor(Counter& counter) : counter_(counter) {}
  void handle(const CustomerAddressChanged& changed) { counter_.value += changed.n; }

 private:
  Counter& counter_;
};

// A trivial receptor at a lifecycle stage: what the guardrail benchmark invokes.
class [[whizbang::fire_at(whizbang::Stage::PostInboxInline)]] PingAtInbox
    : public whizbang::Receptor<Ping> {
 public:
  explicit PingAtInbox(Counter& counter) : counter_(counter) {}
  void handle(const Ping& ping) { counter_.value += ping.n; }

 private:
  Counter& counter_;
};

// Returns two events routed locally without persistence: the cascade under measurement.
class ServeReceptor
    : public whizbang::Receptor<Serve, std::tuple<whizbang::Routed<Ping>, whizbang::Routed<Pong>>> {
 public:
  std::tuple<whizbang::Routed<Ping>, whizbang::Routed<Pong>> handle(const Serve& serve) {
    Ping ping;
    ping.n = serve.n;
    Pong pong;
    pong.n = serve.n;
    return {whizbang::Route::LocalNoPersist(ping), whizbang::Route::LocalNoPersist(pong)};
  }
};

}  // namespace bench
