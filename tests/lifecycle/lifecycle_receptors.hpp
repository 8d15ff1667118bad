// Receptors for the exactly-once tests: every attribute combination the guardrail cares about.
// Parsed by whizbang-gen through whizbang_generate().
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include <whizbang/security/security_context.hpp>
#include <whizbang/whizbang.hpp>

namespace lifecycle_test {

// Counts firings per receptor (and per service, since one registry serves two hosts).
class FireLog {
 public:
  void fired(const std::string& receptor, const std::string& service) {
    const auto* context = whizbang::MessageContext::current();
    std::lock_guard lock(mutex_);
    ++counts_[receptor];
    ++per_service_[receptor + "@" + service];
    last_user_[receptor] = context ? context->security.user_id : "<no context>";
  }
  // The user the receptor's last invocation ran as.
  std::string last_user(const std::string& receptor) const {
    std::lock_guard lock(mutex_);
    auto it = last_user_.find(receptor);
    return it == last_user_.end() ? "<never fired>" : it->second;
  }
  int count(const std::string& receptor) const {
    std::lock_guard lock(mutex_);
    auto it = counts_.find(receptor);
    return it == counts_.end() ? 0 : it->second;
  }
  int count(const std::string& receptor, const std::string& service) const {
    std::lock_guard lock(mutex_);
    auto it = per_service_.find(receptor + "@" + service);
    return it == per_service_.end() ? 0 : it->second;
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, int> counts_;
  std::map<std::string, int> per_service_;
  std::map<std::string, std::string> last_user_;
};

// What each receptor instance reports to: the shared log and the service it lives in (each host
// gets its own ServiceRegistry and so its own Recorder).
class Recorder {
 public:
  Recorder(FireLog& log, std::string service) : log_(log), service_(std::move(service)) {}
  void fired(const std::string& receptor) { log_.fired(receptor, service_); }

 private:
  FireLog& log_;
  std::string service_;
};

struct OrderPlaced : whizbang::Event {
  std::string order_id;
};
struct PaymentCaptured : whizbang::Event {
  std::string order_id;
};
// The ownership filter tests configure owned_domains = {"lifecycle_test"}.
struct ChargeCard : whizbang::Command {
  std::string order_id;
};
struct Explode : whizbang::Event {};
// A local receptor of Poison throws: a dispatch that cascades one fails halfway.
struct Poison : whizbang::Event {};
struct Checkout : whizbang::Command {
  std::string order_id;
};
struct PlaceOrder : whizbang::Command {
  std::string order_id;
};

// Default stages: LocalImmediateDetached + PostInboxDetached.
class SharedProjection : public whizbang::Receptor<OrderPlaced> {
 public:
  explicit SharedProjection(Recorder& recorder) : recorder_(recorder) {}
  void handle(const OrderPlaced&) { recorder_.fired("SharedProjection"); }

 private:
  Recorder& recorder_;
};

class [[whizbang::once_across_services]] ConfirmationEmail
    : public whizbang::Receptor<OrderPlaced> {
 public:
  explicit ConfirmationEmail(Recorder& recorder) : recorder_(recorder) {}
  void handle(const OrderPlaced&) { recorder_.fired("ConfirmationEmail"); }

 private:
  Recorder& recorder_;
};

class [[whizbang::idempotent]] ReadModelUpdater : public whizbang::Receptor<OrderPlaced> {
 public:
  explicit ReadModelUpdater(Recorder& recorder) : recorder_(recorder) {}
  void handle(const OrderPlaced&) { recorder_.fired("ReadModelUpdater"); }

 private:
  Recorder& recorder_;
};

// Registered at two stages of one message lifetime: only the first may fire.
class [[whizbang::fire_at(whizbang::Stage::LocalImmediateInline,
                          whizbang::Stage::PreOutboxInline)]] TwoStageAudit
    : public whizbang::Receptor<PaymentCaptured> {
 public:
  explicit TwoStageAudit(Recorder& recorder) : recorder_(recorder) {}
  void handle(const PaymentCaptured&) { recorder_.fired("TwoStageAudit"); }

 private:
  Recorder& recorder_;
};

class [[whizbang::fire_at(whizbang::Stage::PostInboxInline)]] InboxObserver
    : public whizbang::Receptor<PaymentCaptured> {
 public:
  explicit InboxObserver(Recorder& recorder) : recorder_(recorder) {}
  void handle(const PaymentCaptured&) { recorder_.fired("InboxObserver"); }

 private:
  Recorder& recorder_;
};

class [[whizbang::idempotent(whizbang::OnReplay::AlwaysFire)]] [[whizbang::fire_at(
    whizbang::Stage::PostInboxInline)]] ReplayedProjection
    : public whizbang::Receptor<PaymentCaptured> {
 public:
  explicit ReplayedProjection(Recorder& recorder) : recorder_(recorder) {}
  void handle(const PaymentCaptured&) { recorder_.fired("ReplayedProjection"); }

 private:
  Recorder& recorder_;
};

class [[whizbang::fire_at(whizbang::Stage::PreOutboxInline)]] OutboxGate
    : public whizbang::Receptor<ChargeCard> {
 public:
  explicit OutboxGate(Recorder& recorder) : recorder_(recorder) {}
  void handle(const ChargeCard&) { recorder_.fired("OutboxGate"); }

 private:
  Recorder& recorder_;
};

class [[whizbang::fire_at(whizbang::Stage::PostPerspectiveInline)]] PerPerspectiveCounter
    : public whizbang::Receptor<PaymentCaptured> {
 public:
  explicit PerPerspectiveCounter(Recorder& recorder) : recorder_(recorder) {}
  void handle(const PaymentCaptured&) { recorder_.fired("PerPerspectiveCounter"); }

 private:
  Recorder& recorder_;
};

class [[whizbang::fire_at(whizbang::Stage::PostInboxInline)]] Exploder
    : public whizbang::Receptor<Explode> {
 public:
  explicit Exploder(Recorder& recorder) : recorder_(recorder) {}
  void handle(const Explode&) {
    recorder_.fired("Exploder");
    throw std::runtime_error("boom");
  }

 private:
  Recorder& recorder_;
};

// Emits an order (stored: Local) and then a Poison whose receptor throws.
class CheckoutReceptor : public whizbang::Receptor<Checkout, std::tuple<OrderPlaced, Poison>> {
 public:
  std::tuple<OrderPlaced, Poison> handle(const Checkout& command) {
    OrderPlaced placed;
    placed.order_id = command.order_id;
    return {placed, Poison{}};
  }
};

class PlaceOrderReceptor : public whizbang::Receptor<PlaceOrder, OrderPlaced> {
 public:
  OrderPlaced handle(const PlaceOrder& command) {
    OrderPlaced placed;
    placed.order_id = command.order_id;
    return placed;
  }
};

class PoisonPill : public whizbang::Receptor<Poison> {
 public:
  void handle(const Poison&) { throw std::runtime_error("poison"); }
};

}  // namespace lifecycle_test
