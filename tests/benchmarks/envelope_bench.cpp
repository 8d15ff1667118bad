// The envelope codec: serialize_envelope and deserialize_envelope of a typical envelope (a
// payload, two hops with times, scope, stream and metadata, two invocation records), against
// RapidJSON writing and parsing the same bytes without any mapping (the floor a codec on it can
// reach), in the same run. Also the event store's split of an envelope (each claimed event's) and
// the bounded parse every reader of untrusted JSON runs, against the same parse floor, and the
// inbox's door on a delivery, against that bounded parse.
//   build/tests/benchmarks/envelope_bench
#include <benchmark/benchmark.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <whizbang/message/envelope_json.hpp>
#include <whizbang/security/envelope_signing.hpp>

#include "dispatch_bench_messages.hpp"
#include "store/store_support.hpp"
#include "whizbang/internal/bounded_json.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"
#include "workers/delivery_door.hpp"

namespace {

whizbang::Envelope typical_envelope() {
  bench::Ping ping;
  ping.n = 42;
  whizbang::ServiceInstance self{"orders", whizbang::MessageId::mint().uuid(), "host-1", 4242};
  whizbang::Envelope envelope = whizbang::Envelope::create(whizbang::AnyMessage::make(ping), self);
  whizbang::MessageHop& hop = envelope.hops.front();
  hop.topic = "bench.events";
  hop.stream_id = whizbang::MessageId::mint().uuid();
  hop.scope = whizbang::SecurityScope{"user-1", "tenant-1"};
  hop.metadata["trace"] = "00-8fe2f60995fa4b5b2a2792f08b1ad39f-a8e13f9311145b78-01";
  hop.duration = std::chrono::microseconds(1500);
  whizbang::MessageHop second = hop;
  second.type = whizbang::HopType::Causation;
  envelope.hops.push_back(second);
  for (int i = 0; i < 2; ++i) {
    whizbang::ReceptorInvocationRecord record;
    record.receptor_id = std::string("bench::PingReceptor");
    record.stage = whizbang::Stage::PostInboxInline;
    record.completed_at = whizbang::Clock::now();
    record.duration = std::chrono::microseconds(12);
    record.service_name = "orders";
    envelope.receptor_invocations.push_back(record);
  }
  return envelope;
}

const whizbang::MessageTypeInfo* resolve(std::string_view name) {
  return whizbang::generated::envelope_bench::registry().find_message(name);
}

void BM_SerializeEnvelope(benchmark::State& state) {
  const whizbang::Envelope envelope = typical_envelope();
  std::string out;
  for (auto _ : state) {
    out.clear();
    whizbang::serialize_envelope(envelope, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(out.size()));
}
BENCHMARK(BM_SerializeEnvelope);

// The floor: RapidJSON writing the same document back from a parsed DOM.
void BM_Baseline_RapidJsonWriteSameBytes(benchmark::State& state) {
  const std::string json = whizbang::serialize_envelope(typical_envelope());
  rapidjson::Document document;
  document.Parse(json.data(), json.size());
  for (auto _ : state) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    document.Accept(writer);
    benchmark::DoNotOptimize(buffer.GetString());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(json.size()));
}
BENCHMARK(BM_Baseline_RapidJsonWriteSameBytes);

void BM_DeserializeEnvelope(benchmark::State& state) {
  const std::string json = whizbang::serialize_envelope(typical_envelope());
  for (auto _ : state) {
    auto envelope = whizbang::deserialize_envelope(json, resolve);
    benchmark::DoNotOptimize(envelope.ok());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(json.size()));
}
BENCHMARK(BM_DeserializeEnvelope);

// The floor: RapidJSON parsing the same bytes into a DOM, nothing mapped.
void BM_Baseline_RapidJsonParseSameBytes(benchmark::State& state) {
  const std::string json = whizbang::serialize_envelope(typical_envelope());
  for (auto _ : state) {
    rapidjson::Document document;
    document.Parse(json.data(), json.size());
    benchmark::DoNotOptimize(document.IsObject());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(json.size()));
}
BENCHMARK(BM_Baseline_RapidJsonParseSameBytes);

// What the event store keeps of each event an outbox or inbox claim takes (store_internal::
// event_parts): a bounded parse, then the payload and the hops written out again.
void BM_EventParts(benchmark::State& state) {
  const std::string json = whizbang::serialize_envelope(typical_envelope());
  for (auto _ : state) {
    auto parts = whizbang::store_internal::event_parts(json);
    benchmark::DoNotOptimize(parts.ok());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(json.size()));
}
BENCHMARK(BM_EventParts);

// The document every other reader of untrusted JSON parses (bounded nesting, UTF-8, unique
// keys), against the floor above: rapidjson's own Parse with none of the checks.
void BM_ParseBounded(benchmark::State& state) {
  const std::string json = whizbang::serialize_envelope(typical_envelope());
  for (auto _ : state) {
    rapidjson::Document document;
    benchmark::DoNotOptimize(whizbang::internal::parse_bounded(json, document).IsError());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(json.size()));
}
BENCHMARK(BM_ParseBounded);

// The inbox's door (workers/delivery_door) on a typical delivery, signing off: everything it
// checks beside the parse it shares with storing the row. Its baseline is BM_ParseBounded, the
// parse the inbox ran on each delivery before the door (for the row's stream and sender).
void BM_InboxDoor(benchmark::State& state) {
  const whizbang::Envelope envelope = typical_envelope();
  whizbang::TransportMessage delivery;
  delivery.message_id = envelope.message_id;
  delivery.message_type = std::string(envelope.payload.info()->wire_name);
  delivery.envelope_json = whizbang::serialize_envelope(envelope);
  const whizbang::MessageTypeResolver resolver = resolve;
  const whizbang::EnvelopeLimits limits;
  const whizbang::EnvelopeSigning signing;
  const whizbang::DeliveryDoor door(resolver, limits, signing);
  for (auto _ : state) {
    whizbang::DoorVerdict verdict = door.check(delivery);
    benchmark::DoNotOptimize(verdict.refused.has_value());
  }
  state.SetBytesProcessed(state.iterations() *
                          static_cast<std::int64_t>(delivery.envelope_json.size()));
}
BENCHMARK(BM_InboxDoor);

const whizbang::SigningKeyRing& signing_keys() {
  static const whizbang::SigningKeyRing keys =
      *whizbang::SigningKeyRing::create({{"bench", std::string(32, 'k')}});
  return keys;
}

// What the drain worker adds per published envelope under Sign/Require.
void BM_SignEnvelope(benchmark::State& state) {
  const std::string json = whizbang::serialize_envelope(typical_envelope());
  std::string signed_json;
  for (auto _ : state) {
    signed_json = json;
    benchmark::DoNotOptimize(whizbang::sign_envelope_json(signed_json, signing_keys()).ok());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(json.size()));
}
BENCHMARK(BM_SignEnvelope);

// What the inbox adds per received envelope (it checks at receipt and again when it claims).
void BM_CheckEnvelopeSignature(benchmark::State& state) {
  std::string json = whizbang::serialize_envelope(typical_envelope());
  (void)whizbang::sign_envelope_json(json, signing_keys());
  for (auto _ : state) {
    benchmark::DoNotOptimize(whizbang::check_envelope_signature(json, signing_keys()).verdict);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(json.size()));
}
BENCHMARK(BM_CheckEnvelopeSignature);

// The floor: OpenSSL's one-shot HMAC-SHA256 over the same bytes.
void BM_Baseline_HmacSha256SameBytes(benchmark::State& state) {
  const std::string json = whizbang::serialize_envelope(typical_envelope());
  const std::string key(32, 'k');
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  for (auto _ : state) {
    HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
         reinterpret_cast<const unsigned char*>(json.data()), json.size(), mac, &length);
    benchmark::DoNotOptimize(mac[0]);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(json.size()));
}
BENCHMARK(BM_Baseline_HmacSha256SameBytes);

}  // namespace

BENCHMARK_MAIN();
