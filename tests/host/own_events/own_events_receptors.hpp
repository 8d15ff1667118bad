// A service that publishes an event it also handles (docs/guide/13-rabbitmq.md, "Own events").
#pragma once

#include <whizbang/whizbang.hpp>

#include <atomic>
#include <string>

namespace own_events {

struct CustomerRegistered : whizbang::Event {
  std::string customer_id;
};

// What one service's receptors did, for the tests.
struct Mailbox {
  std::atomic<int> welcomes{0};
  std::atomic<int> counted{0};
};

// One welcome per customer across every service (default stages: here when published, in
// another service's inbox when it published it).
class [[whizbang::once_across_services]] WelcomeEmail
    : public whizbang::Receptor<CustomerRegistered> {
 public:
  explicit WelcomeEmail(Mailbox& mailbox) : mailbox_(mailbox) {}
  void handle(const CustomerRegistered&) { ++mailbox_.welcomes; }

 private:
  Mailbox& mailbox_;
};

// Once in each service that hears of a registration.
class CustomerCounter : public whizbang::Receptor<CustomerRegistered> {
 public:
  explicit CustomerCounter(Mailbox& mailbox) : mailbox_(mailbox) {}
  void handle(const CustomerRegistered&) { ++mailbox_.counted; }

 private:
  Mailbox& mailbox_;
};

}  // namespace own_events
