// libFuzzer target of the envelope decoder (./dev.sh fuzz). Envelopes arrive from brokers and
// stored rows, so deserialize_envelope must answer any bytes with an envelope or a status
// (InvalidArgument or NotFound), never a crash. The oracle goes further than "no crash": what
// decodes must re-encode to bytes that decode and re-encode to the same bytes (equal envelopes
// give equal bytes, runtime/include/whizbang/message/envelope_json.hpp), and the limits of a
// received envelope (docs/guide/08-configuration.md) may refuse an envelope but never change it.
// A broken property prints both sides and traps, so libFuzzer keeps the input.
#include <whizbang/message/envelope_json.hpp>
#include <whizbang/security/envelope_signing.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_messages.hpp"
#include "whizbang_messages.hpp"
#include "whizbang_registry.hpp"

namespace {

using whizbang::Envelope;
using whizbang::EnvelopeLimits;
using whizbang::MessageTypeInfo;

const MessageTypeInfo* resolve(std::string_view name) {
  return whizbang::generated::envelope_decoder_fuzzer::registry().find_message(name);
}

// The name a .NET envelope's type travels under beside it (an EnvelopeType header or a stored
// row's type column; docs/guide/15-dotnet-services.md).
constexpr std::string_view kDotNetType = "Fuzz.Contracts.OrderShipped, Fuzz.Contracts";

const whizbang::SigningKeyRing& signing_keys() {
  static const whizbang::SigningKeyRing keys =
      *whizbang::SigningKeyRing::create({{"fuzz", std::string(32, 'k')}});
  return keys;
}

[[noreturn]] void fail(const char* what, std::string_view first, std::string_view second) {
  std::fprintf(stderr, "envelope_decoder_fuzzer: %s\n  first:  %.*s\n  second: %.*s\n", what,
               static_cast<int>(first.size()), first.data(), static_cast<int>(second.size()),
               second.data());
  __builtin_trap();
}

struct Decoded {
  Envelope envelope;
  std::string encoded;
};

// Decodes `json`; nullopt when it fails with a status the decoder's contract names.
std::optional<Decoded> decode(std::string_view json, std::string_view message_type,
                              const EnvelopeLimits& limits) {
  absl::StatusOr<Envelope> first =
      whizbang::deserialize_envelope(json, resolve, message_type, limits);
  if (!first.ok()) {
    const absl::StatusCode code = first.status().code();
    if ((code != absl::StatusCode::kInvalidArgument && code != absl::StatusCode::kNotFound) ||
        first.status().message().empty()) {
      fail("a status the decoder does not document", first.status().ToString(), json);
    }
    return std::nullopt;
  }
  std::string encoded = whizbang::serialize_envelope(*first);
  // What this runtime wrote itself is read without limits (an input just under max_bytes can
  // re-encode longer: escapes, ISO times, the stream id again as md.AggregateId).
  absl::StatusOr<Envelope> second = whizbang::deserialize_envelope(encoded, resolve);
  if (!second.ok()) fail("its encoding does not decode", encoded, second.status().ToString());
  const std::string again = whizbang::serialize_envelope(*second);
  if (again != encoded) fail("its encoding re-encodes differently", encoded, again);
  return Decoded{*std::move(first), std::move(encoded)};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<std::string> type = whizbang::peek_envelope_type(json);

  const std::optional<Decoded> limited = decode(json, {}, EnvelopeLimits{});
  const std::optional<Decoded> unlimited = decode(json, {}, EnvelopeLimits::none());
  if (limited && (!unlimited || unlimited->encoded != limited->encoded)) {
    fail("decodes within the limits but not the same without them", limited->encoded,
         unlimited ? unlimited->encoded : "(no envelope)");
  }
  // A decoded payload's type is the one "t" names, and peek_envelope_type reads the same "t".
  if (unlimited && unlimited->envelope.payload.info() != nullptr &&
      (!type.ok() || resolve(*type) != unlimited->envelope.payload.info())) {
    fail("peek_envelope_type disagrees with the decoder", type.ok() ? *type : "(no type)",
         unlimited->encoded);
  }
  // As the inbox reads a .NET envelope: its type beside it, not in the body.
  (void)decode(json, kDotNetType, EnvelopeLimits{});
  // The signature check reads the same untrusted bytes first (docs/guide/16-security.md); a
  // signature it accepts must come from the key, so nothing the fuzzer writes may verify.
  if (whizbang::check_envelope_signature(json, signing_keys()).verdict ==
      whizbang::SignatureVerdict::Valid) {
    fail("a signature verified without the key", json, "");
  }
  return 0;
}
