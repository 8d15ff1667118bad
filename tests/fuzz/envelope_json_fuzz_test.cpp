// Envelope JSON under corrupt input: deserialize_envelope either fails with a clean status or
// returns an envelope that survives encode → decode unchanged. Never a crash, throw, hang or
// sanitizer report. Mutants come from a fixed seed, so every run checks the same inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "json_mutator.hpp"
#include "store_test_support.hpp"

namespace store_test {
namespace {

using namespace whizbang;
using namespace std::chrono_literals;

// ---- samples: what the encoder really writes ----------------------------------------------------

Envelope minimal_envelope() {
  return Envelope::create(AnyMessage::make(ShipOrderCommand{"s-1"}), instance("shipping"));
}

// A scoped event with only a tenant, an empty security scope on a second hop and no records.
Envelope scoped_event_envelope() {
  Envelope envelope = Envelope::create(AnyMessage::make(AuditEvent{""}), instance("audit"));
  envelope.hops.front().scope = SecurityScope{"", "tenant-1"};
  MessageHop second = envelope.hops.front();
  second.scope = SecurityScope{};
  second.timestamp = TimePoint(std::chrono::microseconds(-1));
  envelope.hops.push_back(second);
  envelope.dispatch_context = {DispatchModes::EventStoreOnly, MessageSource::Inbox, false, ""};
  return envelope;
}

// No payload and no hops: the members a decoder must treat as optional.
Envelope bare_envelope() {
  Envelope envelope;
  envelope.message_id = MessageId::mint();
  return envelope;
}

std::vector<std::string> samples() {
  return {serialize_envelope(full_envelope()), serialize_envelope(minimal_envelope()),
          serialize_envelope(scoped_event_envelope()), serialize_envelope(bare_envelope())};
}

// ---- the property -------------------------------------------------------------------------------

// Mutants hold control bytes and can be 200 KB long: print a short, escaped prefix.
std::string printable(std::string_view json) {
  std::string out;
  for (const char c : json.substr(0, 400)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7F) {
      out += c;
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", byte);
      out += escaped;
    }
  }
  if (json.size() > 400) out += "... (" + std::to_string(json.size()) + " bytes)";
  return out;
}

// Every wire field (handler_name is never serialized); the payload is compared by its JSON.
bool same_wire_fields(const Envelope& a, const Envelope& b) {
  return a.version == b.version && a.message_id == b.message_id &&
         a.payload.info() == b.payload.info() && a.hops == b.hops &&
         std::equal(a.receptor_invocations.begin(), a.receptor_invocations.end(),
                    b.receptor_invocations.begin(), b.receptor_invocations.end()) &&
         a.dispatch_context.same_wire_fields(b.dispatch_context) &&
         a.source_service_id == b.source_service_id &&
         serialize_envelope(a) == serialize_envelope(b);
}

// Decodes or fails cleanly; a decoded envelope re-encodes and decodes to an equal envelope.
// Returns false (after a test failure naming the input) when the property does not hold.
bool decodes_or_fails_cleanly(std::string_view json, std::string_view label) {
  (void)peek_envelope_type(json);  // must not crash either; any answer is fine
  absl::StatusOr<Envelope> first = deserialize_envelope(json, resolve);
  if (!first.ok()) {
    const absl::StatusCode code = first.status().code();
    const bool clean =
        (code == absl::StatusCode::kInvalidArgument || code == absl::StatusCode::kNotFound) &&
        !first.status().message().empty();
    EXPECT_TRUE(clean) << label << ": unexpected status " << first.status()
                       << "\ninput: " << printable(json);
    return clean;
  }
  const std::string encoded = serialize_envelope(*first);
  absl::StatusOr<Envelope> second = deserialize_envelope(encoded, resolve);
  if (!second.ok()) {
    ADD_FAILURE() << label << ": decoded, but its re-encoding does not decode: " << second.status()
                  << "\ninput:     " << printable(json) << "\nre-encoded: " << printable(encoded);
    return false;
  }
  if (!same_wire_fields(*first, *second)) {
    ADD_FAILURE() << label << ": round trip changed the envelope\ninput:      " << printable(json)
                  << "\nre-encoded: " << printable(encoded)
                  << "\nagain:      " << printable(serialize_envelope(*second));
    return false;
  }
  return true;
}

// ---- tests --------------------------------------------------------------------------------------

TEST(EnvelopeJsonFuzzTests, UnmutatedSamples_RoundTripExactly) {
  for (const std::string& sample : samples()) {
    absl::StatusOr<Envelope> back = deserialize_envelope(sample, resolve);
    ASSERT_TRUE(back.ok()) << back.status() << "\n" << printable(sample);
    EXPECT_EQ(serialize_envelope(*back), sample);
    EXPECT_TRUE(decodes_or_fails_cleanly(sample, "sample"));
  }
}

TEST(EnvelopeJsonFuzzTests, MutatedEnvelope_DecodesOrFailsCleanly) {
  json_fuzz::JsonMutator mutator(json_fuzz::kSeed, samples());
  const std::size_t count = json_fuzz::iterations(20'000);
  std::size_t decoded = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const std::string mutant = mutator.mutate();
    absl::StatusOr<Envelope> envelope = deserialize_envelope(mutant, resolve);
    decoded += envelope.ok() ? 1 : 0;
    if (!decodes_or_fails_cleanly(mutant, "mutant " + std::to_string(i))) break;
  }
  std::printf("[ fuzz     ] %zu envelope mutants, %zu decoded (and round-tripped)\n", count,
              decoded);
  // Both outcomes must be exercised, or the mutator is too weak (or too strong) to mean much.
  EXPECT_GT(decoded, count / 50) << "of " << count;
  EXPECT_LT(decoded, count - count / 10) << "of " << count;
}

TEST(EnvelopeJsonFuzzTests, EveryTruncation_FailsCleanly) {
  for (const std::string& sample : samples()) {
    for (std::size_t length = 0; length < sample.size(); ++length) {
      // A proper prefix of a JSON object is never a JSON object.
      absl::StatusOr<Envelope> envelope =
          deserialize_envelope(std::string_view(sample).substr(0, length), resolve);
      ASSERT_FALSE(envelope.ok()) << "prefix " << length << " of " << printable(sample);
      EXPECT_EQ(envelope.status().code(), absl::StatusCode::kInvalidArgument);
    }
  }
}

TEST(EnvelopeJsonFuzzTests, WrongValueForEveryMember_DecodesOrFailsCleanly) {
  for (const std::string& sample : samples()) {
    for (const std::size_t at : json_fuzz::member_value_offsets(sample)) {
      for (const std::string& value : json_fuzz::replacement_values()) {
        const std::string mutant = json_fuzz::replace_value(sample, at, value);
        ASSERT_TRUE(decodes_or_fails_cleanly(mutant, "member at " + std::to_string(at)));
      }
    }
  }
}

TEST(EnvelopeJsonFuzzTests, SplicedSamples_DecodeOrFailCleanly) {
  const std::vector<std::string> all = samples();
  for (const std::string& head : all) {
    for (const std::string& tail : all) {
      for (std::size_t cut = 0; cut < head.size(); cut += 5) {
        const std::string mutant = head.substr(0, cut) + tail.substr(std::min(cut, tail.size()));
        ASSERT_TRUE(decodes_or_fails_cleanly(mutant, "splice at " + std::to_string(cut)));
      }
    }
  }
}

// A member twice in one object is refused wherever it is: readers that keep the first and readers
// that keep the last would disagree about the envelope (docs/guide/16-security.md).
TEST(EnvelopeJsonFuzzTests, DuplicateMembers_AreRefused) {
  const std::string sample = serialize_envelope(full_envelope());
  for (const std::size_t at : json_fuzz::member_value_offsets(sample)) {
    // `,"key":value` again right after the member: the same object, with the same value text.
    const std::size_t key = sample.rfind('"', at - 3);
    const std::size_t end = json_fuzz::value_end(sample, at);
    const std::string member = sample.substr(key, end - key);
    std::string mutant = sample;
    mutant.insert(end, "," + member);
    const absl::StatusOr<Envelope> decoded = deserialize_envelope(mutant, resolve);
    ASSERT_FALSE(decoded.ok()) << "duplicate at " << at << ": " << printable(mutant);
    EXPECT_NE(decoded.status().message().find("duplicate key"), std::string::npos)
        << decoded.status();
  }
}

// Regression: the decoder's parser recursed once per nesting level, so an envelope of 300000 or
// more '[' overflowed an 8 MB stack (SIGSEGV) instead of failing. Parsing now stops past 1000
// levels (runtime/src/internal/bounded_json.hpp).
TEST(EnvelopeJsonFuzzTests, DeepNesting_FailsCleanlyWithoutExhaustingTheStack) {
  const std::string id = MessageId::mint().to_string();
  const std::string head = R"({"v":1,"id":")" + id + R"(","t":"store_test::AuditEvent",)";
  const std::string deep = json_fuzz::deep_array(100'000, /*closed=*/true);
  const std::vector<std::string> inputs = {
      json_fuzz::deep_array(1'000'000, /*closed=*/false),
      json_fuzz::deep_array(1'000'000, /*closed=*/true),
      head + R"("p":)" + deep + R"(,"h":[]})",
      head + R"("p":{"action":"x"},"h":)" + deep + "}",
      head + R"("p":{"action":"x"},"h":[],"zz":)" + json_fuzz::deep_array(1'000'000, true) + "}",
      head + R"("p":{"action":"x"},"h":[],"ri":)" + json_fuzz::deep_array(100'000, false),
  };
  for (const std::string& input : inputs) {
    EXPECT_TRUE(decodes_or_fails_cleanly(input, "deep"));
  }
  // Past kMaxJsonDepth (1000) levels the parse stops with an error naming the cause; an unknown
  // member nesting less deeply is still skipped, not an error.
  absl::StatusOr<Envelope> too_deep = deserialize_envelope(inputs[4], resolve);
  ASSERT_FALSE(too_deep.ok());
  EXPECT_NE(too_deep.status().message().find("nested too deeply"), std::string::npos)
      << too_deep.status();
  const std::string shallow_enough =
      head + R"("p":{"action":"x"},"h":[],"zz":)" + json_fuzz::deep_array(900, true) + "}";
  EXPECT_TRUE(deserialize_envelope(shallow_enough, resolve).ok());
}

// Regression (found by MutatedEnvelope_DecodesOrFailsCleanly, input kept verbatim): a "ts" beyond
// what TimePoint's int64 nanoseconds hold overflowed in duration_cast (UB), decoding to a wrapped
// time that re-encoded as a different number. Out-of-range times are now InvalidArgument.
TEST(EnvelopeJsonFuzzTests, OutOfRangeTimestamp_IsRejectedNotWrapped) {
  const std::string found =
      R"({"v":1,"id":"01a22cb8-84ca-702b-805d-080417716adb","t":"store_test::ShipOrderCommand",)"
      R"("p":{"order_id":"s-1"},"h":[{"si":{"sn":"shipping","ii":"01a22cb8-84ca-702b-805c-)"
      R"(ac1e66167c8a","hn":"test-host","pi":4242},"ts":17960466169850204}],)"
      R"("dc":{"m":5,"s":0,"d":false}})";
  absl::StatusOr<Envelope> envelope = deserialize_envelope(found, resolve);
  ASSERT_FALSE(envelope.ok());
  EXPECT_EQ(envelope.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(envelope.status().message().find("$.h[0].ts"), std::string::npos) << envelope.status();

  // The same for a receptor invocation's "at", at both ends of the int64 range.
  const std::string sample = serialize_envelope(full_envelope());
  const std::size_t at = sample.find(R"("at":)") + 5;
  for (const std::string_view value : {"9223372036854775807", "-9223372036854775808"}) {
    absl::StatusOr<Envelope> record =
        deserialize_envelope(json_fuzz::replace_value(sample, at, value), resolve);
    ASSERT_FALSE(record.ok()) << value;
    EXPECT_NE(record.status().message().find("$.rin[0].at"), std::string::npos) << record.status();
  }

  // The extremes that do fit (as earlier envelopes' integer microseconds) still decode, and
  // re-encode as ISO times that decode to the same time.
  const std::string ts_at = sample.substr(0, sample.find(R"("ts":)") + 5);
  for (const std::string_view value : {"9223372036854775", "-9223372036854775"}) {
    const std::string edge = json_fuzz::replace_value(sample, ts_at.size(), value);
    absl::StatusOr<Envelope> back = deserialize_envelope(edge, resolve);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(decodes_or_fails_cleanly(edge, std::string(value)));
    absl::StatusOr<Envelope> again = deserialize_envelope(serialize_envelope(*back), resolve);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(again->hops[0].timestamp, back->hops[0].timestamp);
  }
  // And ISO times beyond that range are refused, not wrapped.
  for (const std::string_view value :
       {R"("2263-01-01T00:00:00+00:00")", R"("1676-01-01T00:00:00+00:00")"}) {
    absl::StatusOr<Envelope> far =
        deserialize_envelope(json_fuzz::replace_value(sample, ts_at.size(), value), resolve);
    ASSERT_FALSE(far.ok()) << value;
    EXPECT_NE(far.status().message().find("$.h[0].ts"), std::string::npos) << far.status();
  }
}

}  // namespace
}  // namespace store_test
