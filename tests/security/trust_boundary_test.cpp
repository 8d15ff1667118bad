// What a sender on the transport without the key can do, under Require: nothing. Each attack
// below was possible before envelopes were signed (docs/guide/16-security.md); each delivery is
// now refused at the inbox's door with its reason and EventId 160 (kept once as a dead letter,
// the transport here having none), never handled, and a forged copy cannot take the id of the
// genuine message it imitates.
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/escaping.h"
#include "store_test_support.hpp"
#include "support/log_capture.hpp"
#include "tampering.hpp"
#include "whizbang/security/envelope_signing.hpp"
#include "whizbang/store/memory_work_store.hpp"
#include "whizbang/transport/in_process_transport.hpp"
#include "whizbang/workers/inbox_worker.hpp"
#include "whizbang/workers/outbox_drain_worker.hpp"

namespace whizbang {
namespace {

SigningKeyRing keys() { return *SigningKeyRing::create({{"k1", std::string(32, 'k')}}); }

TransportMessage delivery(const Envelope& envelope, const SigningKeyRing* signer) {
  TransportMessage message;
  message.message_id = envelope.message_id;
  message.message_type = std::string(envelope.payload.info()->wire_name);
  message.envelope_json = serialize_envelope(envelope);
  message.is_event = true;
  if (signer != nullptr) {
    EXPECT_TRUE(sign_envelope_json(message.envelope_json, *signer).ok());
  }
  return message;
}

Envelope order_envelope() {
  return Envelope::create(AnyMessage::make(store_test::OrderCreated{"o-1", 10}),
                          store_test::instance("orders"));
}

class TrustBoundaryTests : public ::testing::Test {
 protected:
  void make_worker(EnvelopeSigningMode mode,
                   std::optional<std::vector<std::string>> trusted = std::nullopt) {
    InboxWorkerOptions options;
    options.signing = {mode, keys()};
    options.scope_trusted_services = std::move(trusted);
    options.logger = log_.logger;
    worker_ = std::make_unique<InboxWorker>(
        store_, store_test::resolve,
        [this](InboxHandling& handling) {
          handled_.push_back(handling.envelope);
          return absl::OkStatus();
        },
        options);
  }
  // How many deliveries the door refused so far.
  std::uint64_t refused() const { return worker_->delivery_health().refused_deliveries; }
  InboxCycleResult deliver(const TransportMessage& message) {
    EXPECT_TRUE(worker_->receive({&message, 1}).ok());
    absl::StatusOr<InboxCycleResult> cycle = worker_->run_once();
    EXPECT_TRUE(cycle.ok()) << cycle.status();
    return cycle.ok() ? *cycle : InboxCycleResult{};
  }
  // The one dead letter's error, checked to be a refusal.
  std::string refusal() {
    absl::StatusOr<std::vector<DeadLetter>> letters = store_.dead_letters(10);
    EXPECT_TRUE(letters.ok());
    EXPECT_EQ(letters->size(), 1u);
    if (!letters.ok() || letters->empty()) return {};
    EXPECT_EQ(letters->front().reason, FailureReason::ValidationError);
    return letters->front().error;
  }

  MemoryWorkStore store_;
  whizbang_test::LogCapture log_;
  std::vector<Envelope> handled_;
  std::unique_ptr<InboxWorker> worker_;
};

TEST_F(TrustBoundaryTests, UnsignedEnvelopeClaimingSystemForAllTenants_IsRefused) {
  make_worker(EnvelopeSigningMode::Require);
  Envelope envelope = order_envelope();
  SecurityScope claimed;
  claimed.user_id = "SYSTEM";
  claimed.tenant_id = "*";
  claimed.type = SecurityContextType::System;
  envelope.hops.front().scope = claimed;
  const InboxCycleResult cycle = deliver(delivery(envelope, nullptr));
  EXPECT_EQ(cycle.handled, 0u);
  EXPECT_EQ(refused(), 1u);
  EXPECT_TRUE(handled_.empty());
  EXPECT_NE(refusal().find("unsigned"), std::string::npos);
  EXPECT_EQ(log_.count("[EventId 160 EnvelopeRefused]"), 1) << "at the door, never claimed";
}

TEST_F(TrustBoundaryTests, ForgedInvocationRecordToSuppressAReceptor_IsRefused) {
  make_worker(EnvelopeSigningMode::Require);
  Envelope envelope = order_envelope();
  ReceptorInvocationRecord record;  // names no service: would stop the receptor everywhere
  record.receptor_id = std::string("shop::Mailer");
  record.stage = Stage::PostInboxInline;
  envelope.receptor_invocations.push_back(record);
  EXPECT_EQ(deliver(delivery(envelope, nullptr)).handled, 0u);
  EXPECT_EQ(refused(), 1u);
  EXPECT_TRUE(handled_.empty());
}

TEST_F(TrustBoundaryTests, ForgedLastHopFromTheReceivingService_IsRefused) {
  make_worker(EnvelopeSigningMode::Require);
  Envelope envelope = order_envelope();
  MessageHop hop = envelope.hops.front();
  hop.service_instance = store_test::instance("shipping");  // "it came from us": skip PostInbox
  envelope.hops.push_back(hop);
  EXPECT_EQ(deliver(delivery(envelope, nullptr)).handled, 0u);
  EXPECT_EQ(refused(), 1u);
  EXPECT_TRUE(handled_.empty());
}

// A signed envelope changed in flight: a record appended, the payload or the scope altered.
TEST_F(TrustBoundaryTests, SignedEnvelopeChangedInFlight_IsRefused) {
  make_worker(EnvelopeSigningMode::Require);
  Envelope envelope = order_envelope();
  envelope.hops.front().scope = SecurityScope{"alice", "acme"};
  TransportMessage message = delivery(envelope, nullptr);
  const SigningKeyRing ring = keys();
  ASSERT_TRUE(sign_envelope_json(message.envelope_json, ring).ok());
  message.envelope_json =
      security_test::replaced(message.envelope_json, R"("u":"alice")", R"("u":"mallory")");
  EXPECT_EQ(deliver(message).handled, 0u);
  EXPECT_EQ(refused(), 1u);
  EXPECT_TRUE(handled_.empty());
  EXPECT_NE(refusal().find("does not match its content"), std::string::npos);
}

TEST_F(TrustBoundaryTests, SignedWithAKeyNotInTheRing_IsRefused) {
  make_worker(EnvelopeSigningMode::Require);
  const SigningKeyRing stranger = *SigningKeyRing::create({{"k1", std::string(32, 's')}});
  EXPECT_EQ(deliver(delivery(order_envelope(), &stranger)).handled, 0u);
  EXPECT_EQ(refused(), 1u);
  EXPECT_TRUE(handled_.empty());
}

// The forged copy arrives first with the genuine message's id: it must not occupy that id in the
// inbox's deduplication, or the genuine message would be dropped as a duplicate.
TEST_F(TrustBoundaryTests, ForgedCopyArrivingFirst_DoesNotSuppressTheGenuineMessage) {
  make_worker(EnvelopeSigningMode::Require);
  const SigningKeyRing ring = keys();
  const Envelope genuine = order_envelope();
  Envelope forged = genuine;
  forged.hops.front().scope = SecurityScope{"SYSTEM", "*"};
  EXPECT_EQ(deliver(delivery(forged, nullptr)).handled, 0u);
  EXPECT_EQ(refused(), 1u);
  const InboxCycleResult cycle = deliver(delivery(genuine, &ring));
  EXPECT_EQ(cycle.handled, 1u);
  ASSERT_EQ(handled_.size(), 1u);
  EXPECT_EQ(handled_.front().message_id, genuine.message_id);
  EXPECT_FALSE(handled_.front().current_scope().has_value());
}

TEST_F(TrustBoundaryTests, SignMode_AcceptsUnsignedButNotBadlySigned) {
  make_worker(EnvelopeSigningMode::Sign);
  EXPECT_EQ(deliver(delivery(order_envelope(), nullptr)).handled, 1u);
  const SigningKeyRing stranger = *SigningKeyRing::create({{"k1", std::string(32, 's')}});
  EXPECT_EQ(deliver(delivery(order_envelope(), &stranger)).handled, 0u);
  EXPECT_EQ(refused(), 1u);
  EXPECT_EQ(handled_.size(), 1u);
}

// What the drain worker publishes under Sign is signed, and a Require receiver handles it.
TEST_F(TrustBoundaryTests, DrainWorkerSigns_WhatARequiringReceiverHandles) {
  make_worker(EnvelopeSigningMode::Require);
  MemoryWorkStore sender_store;
  InProcessTransport transport;
  auto consumer = *transport.subscribe(
      "shipping", {{"orders", ""}},
      [this](const TransportDestination&, std::span<const TransportMessage> batch) {
        return worker_->receive(batch);
      });
  OutboxDrainWorkerOptions options;
  options.signing = {EnvelopeSigningMode::Sign, keys()};
  OutboxDrainWorker drain(sender_store, transport, store_test::resolve, options);
  const OutboxMessage row =
      store_test::outbox_message(store_test::OrderCreated{"o-9", 9}, "orders");
  ASSERT_TRUE(sender_store.store_outbox_messages({&row, 1}).ok());
  ASSERT_TRUE(drain.run_once().ok());

  ASSERT_EQ(transport.published().size(), 1u);
  const SigningKeyRing ring = keys();
  EXPECT_EQ(
      check_envelope_signature(transport.published().front().message.envelope_json, ring).verdict,
      SignatureVerdict::Valid);
  absl::StatusOr<InboxCycleResult> cycle = worker_->run_once();
  ASSERT_TRUE(cycle.ok()) << cycle.status();
  EXPECT_EQ(cycle->handled, 1u);
  ASSERT_EQ(handled_.size(), 1u);
  EXPECT_EQ(handled_.front().message_id, row.message_id);
}

// A receiver told which services may set a scope ignores a scope set by any other.
TEST_F(TrustBoundaryTests, ScopeFromAnUntrustedService_IsDropped) {
  make_worker(EnvelopeSigningMode::Require, std::vector<std::string>{"orders"});
  const SigningKeyRing ring = keys();
  Envelope trusted = order_envelope();
  trusted.hops.front().scope = SecurityScope{"alice", "acme"};
  Envelope untrusted = order_envelope();
  untrusted.hops.front().service_instance = store_test::instance("billing");
  untrusted.hops.front().scope = SecurityScope{"SYSTEM", "*"};
  EXPECT_EQ(deliver(delivery(trusted, &ring)).handled, 1u);
  EXPECT_EQ(deliver(delivery(untrusted, &ring)).handled, 1u);
  ASSERT_EQ(handled_.size(), 2u);
  EXPECT_EQ(handled_[0].current_scope(), (SecurityScope{"alice", "acme"}));
  EXPECT_FALSE(handled_[1].current_scope().has_value());
  EXPECT_EQ(log_.count("[EventId 161 UntrustedScopeDropped]"), 1);
}

}  // namespace
}  // namespace whizbang
