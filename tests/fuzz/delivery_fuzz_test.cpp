// The delivery path under corrupt input, on every backend: batches of deliveries whose envelopes
// are mutated (json_mutator.hpp) and whose types and ids are damaged go through an inbox, with
// and without a transport that keeps dead letters; delivery_oracle.hpp says what must hold
// after each. Fixed seed: every run checks the same inputs (WHIZBANG_FUZZ_ITERATIONS for more).
// Before the inbox's door, the first invalid byte made PostgreSQL refuse the whole batch.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "delivery_oracle.hpp"
#include "json_mutator.hpp"
#include "store_backends.hpp"
#include "support/dead_lettering_transport.hpp"

namespace store_test {
namespace {

using whizbang::TransportMessage;

// A genuine delivery of one of the test's message types, with a fresh id.
TransportMessage genuine(std::mt19937& random) {
  switch (random() % 3) {
    case 0:
      return transport_message(outbox_message(OrderCreated{"o-1", 7}, "orders"));
    case 1:
      return transport_message(outbox_message(ShipOrderCommand{"s-1"}, "shipping"));
    default:
      return transport_message(outbox_message(AuditEvent{"a\"\\\u00fc"}, "audit"));
  }
}

// Damage of the kinds a sender on the broker can do beside the body.
void damage_properties(TransportMessage& message, std::mt19937& random) {
  switch (random() % 10) {
    case 0:
      message.message_type.insert(random() % (message.message_type.size() + 1), "\xff");
      break;
    case 1:
      message.message_type += std::string("\0\x1b[2J", 5);
      break;
    case 2:
      message.message_type = "Unknown.Type" + std::to_string(random() % 5);
      break;
    case 3:
      message.message_id = whizbang::MessageId::mint();  // another message's id
      break;
    case 4:
      message.message_id = whizbang::MessageId::from_trusted(
          *whizbang::Uuid::parse("1b4e28ba-2fa1-41d2-883f-0016d3cca427"));
      break;
    default:
      break;  // the properties as sent
  }
}

template <class Backend>
class DeliveryFuzzTests : public BackendStoreTest<Backend> {};
TYPED_TEST_SUITE(DeliveryFuzzTests, Backends, BackendNames);

TYPED_TEST(DeliveryFuzzTests, AnyDeliveredBatch_TakenRefusedOrKept_NeverStuck) {
  std::mt19937 random(json_fuzz::kSeed);
  std::vector<std::string> samples;
  for (int i = 0; i < 6; ++i) samples.push_back(genuine(random).envelope_json);
  json_fuzz::JsonMutator mutator(json_fuzz::kSeed, samples);
  const auto handler = [](whizbang::InboxHandling&) { return absl::OkStatus(); };
  whizbang::InboxWorkerOptions options;
  options.envelope_limits.max_bytes = 64 * 1024;
  whizbang::InboxWorker keeping(*this->store_, resolve, handler, options);
  whizbang::InboxWorker refusing(*this->store_, resolve, handler, options);
  whizbang_test::DeadLetteringTransport transport;
  auto subscription = refusing.subscribe(transport);
  ASSERT_TRUE(subscription.ok());

  const std::size_t rounds =
      json_fuzz::iterations(std::is_same_v<TypeParam, PostgresBackend> ? 120 : 300);
  for (std::size_t round = 0; round < rounds; ++round) {
    std::vector<TransportMessage> batch;
    const std::size_t size = 1 + random() % 4;
    for (std::size_t i = 0; i < size; ++i) {
      TransportMessage message = genuine(random);
      if (random() % 3 != 0) {
        // The genuine envelope of this id, damaged (its id survives most mutations).
        message.envelope_json = mutator.mutate(message.envelope_json);
      }
      damage_properties(message, random);
      batch.push_back(std::move(message));
    }
    const bool with_transport = round % 2 == 0;
    whizbang::InboxWorker& worker = with_transport ? refusing : keeping;
    const whizbang::DeliveryOutcome outcome =
        with_transport ? transport.deliver(batch) : worker.receive(batch);
    const std::string broken = delivery_oracle::violation(*this->store_, worker, batch, outcome);
    ASSERT_EQ(broken, "") << "round " << round << ", first envelope: "
                          << whizbang::printable(batch.front().envelope_json.substr(0, 300));
  }
}

}  // namespace
}  // namespace store_test
