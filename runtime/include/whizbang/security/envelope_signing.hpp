// Signed envelopes: an HMAC-SHA256 over everything a receiver trusts in an envelope, so a sender
// that can write to the transport but holds no key cannot claim a user, suppress a receptor
// with a forged invocation record or change a payload (docs/guide/16-security.md).
//
// The signature is the envelope's last member, "sg":{"k":key id,"m":base64 MAC}, and the MAC
// covers the exact bytes of the envelope without it (id, type, payload, hops with their scopes,
// invocation records, dispatch context, source service). Receivers check the bytes they were
// sent, before decoding them, so no re-encoding can make two readers disagree.
//
//   auto keys = whizbang::SigningKeyRing::from_environment();   // WHIZBANG_SIGNING_KEYS
//   host_options.signing = {whizbang::EnvelopeSigningMode::Require, *keys};
//
// Rotation without downtime: the first key of the ring signs, every listed key verifies. Add the
// new key second everywhere, then move it first everywhere, then drop the old one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace whizbang {

enum class EnvelopeSigningMode : std::uint8_t {
  // Nothing is signed or checked: the transport is the trust boundary (whoever can publish to
  // the broker can claim any user and suppress any receptor).
  Off = 0,
  // Published envelopes are signed; received ones are accepted unsigned (while the senders are
  // being upgraded), but one with a signature that does not verify is refused.
  Sign = 1,
  // Published envelopes are signed; a received envelope that is unsigned or badly signed is
  // dead-lettered with the reason, never handled.
  Require = 2,
};

struct SigningKey {
  // Letters, digits, '.', '_' and '-', at most 64: it is written into every envelope.
  std::string id;
  // At least 32 bytes (the HMAC-SHA256 block of security). Never logged.
  std::string secret;
};

class SigningKeyRing {
 public:
  SigningKeyRing() = default;

  // InvalidArgument for a bad id, a short secret or an id listed twice.
  static absl::StatusOr<SigningKeyRing> create(std::vector<SigningKey> keys);
  // "id:base64secret,id:base64secret" (the first signs). The status never holds a secret.
  static absl::StatusOr<SigningKeyRing> parse(std::string_view text);
  // parse() of WHIZBANG_SIGNING_KEYS; an empty ring when it is unset.
  static absl::StatusOr<SigningKeyRing> from_environment();

  bool empty() const { return keys_.empty(); }
  // The key that signs: the first. nullptr when empty.
  const SigningKey* signing_key() const { return keys_.empty() ? nullptr : &keys_.front(); }
  const SigningKey* find(std::string_view id) const;
  std::vector<std::string> key_ids() const;

 private:
  std::vector<SigningKey> keys_;
};

struct EnvelopeSigning {
  EnvelopeSigningMode mode = EnvelopeSigningMode::Off;
  SigningKeyRing keys;

  // FailedPrecondition when Sign or Require has no key to sign with.
  absl::Status validate() const;
};

// Signs a serialized envelope in place: replaces any signature it has with one by the ring's
// signing key. FailedPrecondition for an empty ring, InvalidArgument when `envelope_json` is not
// an object.
absl::Status sign_envelope_json(std::string& envelope_json, const SigningKeyRing& keys);

enum class SignatureVerdict : std::uint8_t { Valid, Unsigned, Invalid };

struct SignatureCheck {
  SignatureVerdict verdict = SignatureVerdict::Unsigned;
  std::string key_id;  // of a signed envelope
  std::string reason;  // why it is Invalid
};

// Checks the signature of a serialized envelope against the ring.
SignatureCheck check_envelope_signature(std::string_view envelope_json, const SigningKeyRing& keys);

// What a receiver in `signing.mode` does with a delivery: OK to accept it, else PermissionDenied
// saying why (unsigned under Require, or a signature that does not verify under Sign/Require).
absl::Status admit_envelope(std::string_view envelope_json, const EnvelopeSigning& signing);

}  // namespace whizbang
