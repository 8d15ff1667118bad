// Signed envelopes: the key ring, signing, and what a check finds when anything the receiver
// trusts was changed after signing.
#include "whizbang/security/envelope_signing.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "absl/strings/escaping.h"
#include "store_test_support.hpp"
#include "tampering.hpp"

namespace whizbang {
namespace {

std::string secret(char fill) { return std::string(32, fill); }
std::string base64(const std::string& bytes) { return absl::Base64Escape(bytes); }

SigningKeyRing ring(std::vector<SigningKey> keys) {
  absl::StatusOr<SigningKeyRing> created = SigningKeyRing::create(std::move(keys));
  EXPECT_TRUE(created.ok()) << created.status();
  return created.ok() ? *std::move(created) : SigningKeyRing();
}

std::string envelope_json() { return serialize_envelope(store_test::full_envelope()); }

std::string signed_json(const SigningKeyRing& keys) {
  std::string json = envelope_json();
  EXPECT_TRUE(sign_envelope_json(json, keys).ok());
  return json;
}

using security_test::replaced;

TEST(SigningKeyRingTests, ParsesIdsAndBase64Secrets_FirstKeySigns) {
  absl::StatusOr<SigningKeyRing> keys =
      SigningKeyRing::parse("new:" + base64(secret('n')) + ", old:" + base64(secret('o')));
  ASSERT_TRUE(keys.ok()) << keys.status();
  ASSERT_NE(keys->signing_key(), nullptr);
  EXPECT_EQ(keys->signing_key()->id, "new");
  EXPECT_EQ(keys->signing_key()->secret, secret('n'));
  ASSERT_NE(keys->find("old"), nullptr);
  EXPECT_EQ(keys->key_ids(), (std::vector<std::string>{"new", "old"}));
}

TEST(SigningKeyRingTests, RefusesBadIdsShortSecretsDuplicatesAndNonBase64_WithoutShowingSecrets) {
  const std::string short_secret = base64(std::string(31, 's'));
  const std::vector<std::string> texts = {
      "k 1:" + base64(secret('a')),
      "k:" + short_secret,
      "k:" + base64(secret('a')) + ",k:" + base64(secret('b')),
      "k:not*base64!",
      "no-colon",
      "\"quoted\":" + base64(secret('a')),
  };
  for (const std::string& text : texts) {
    absl::StatusOr<SigningKeyRing> keys = SigningKeyRing::parse(text);
    ASSERT_FALSE(keys.ok()) << text;
    EXPECT_EQ(keys.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(keys.status().message().find(short_secret), std::string::npos);
    EXPECT_EQ(keys.status().message().find(base64(secret('a'))), std::string::npos);
  }
}

TEST(SigningKeyRingTests, FromEnvironment_ReadsWhizbangSigningKeys) {
  ::setenv("WHIZBANG_SIGNING_KEYS", ("env-key:" + base64(secret('e'))).c_str(), 1);
  absl::StatusOr<SigningKeyRing> keys = SigningKeyRing::from_environment();
  ::unsetenv("WHIZBANG_SIGNING_KEYS");
  ASSERT_TRUE(keys.ok()) << keys.status();
  ASSERT_NE(keys->find("env-key"), nullptr);
  absl::StatusOr<SigningKeyRing> none = SigningKeyRing::from_environment();
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(EnvelopeSigningTests, SignOrRequireWithoutKeys_IsRefusedAtConfiguration) {
  EXPECT_TRUE(EnvelopeSigning{}.validate().ok());
  const EnvelopeSigning require{EnvelopeSigningMode::Require, {}};
  const EnvelopeSigning sign{EnvelopeSigningMode::Sign, {}};
  EXPECT_EQ(require.validate().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(sign.validate().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(EnvelopeSigningTests, SignedEnvelope_VerifiesAndStillDecodesToTheSameEnvelope) {
  const SigningKeyRing keys = ring({{"k1", secret('a')}});
  const std::string unsigned_json = envelope_json();
  std::string json = unsigned_json;
  ASSERT_TRUE(sign_envelope_json(json, keys).ok());
  EXPECT_NE(json.find(R"(,"sg":{"k":"k1","m":")"), std::string::npos) << json;
  const SignatureCheck check = check_envelope_signature(json, keys);
  EXPECT_EQ(check.verdict, SignatureVerdict::Valid) << check.reason;
  EXPECT_EQ(check.key_id, "k1");

  absl::StatusOr<Envelope> decoded = deserialize_envelope(json, store_test::resolve);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(serialize_envelope(*decoded), unsigned_json);
}

TEST(EnvelopeSigningTests, SigningTwice_ReplacesTheSignature) {
  const SigningKeyRing first = ring({{"k1", secret('a')}});
  const SigningKeyRing second = ring({{"k2", secret('b')}});
  std::string json = signed_json(first);
  ASSERT_TRUE(sign_envelope_json(json, second).ok());
  EXPECT_EQ(json.find("\"k1\""), std::string::npos);
  EXPECT_EQ(check_envelope_signature(json, second).verdict, SignatureVerdict::Valid);
}

// Each part a receiver trusts, changed after signing: the signature no longer matches.
TEST(EnvelopeSigningTests, AnyChangeToWhatIsSigned_FailsTheCheck) {
  const SigningKeyRing keys = ring({{"k1", secret('a')}});
  const std::string json = signed_json(keys);
  const std::vector<std::pair<std::string, std::string>> tamperings = {
      {R"("amount":-12)", R"("amount":-13)"},               // payload
      {R"("u":"user-1")", R"("u":"SYSTEM")"},               // the scope's user
      {R"("t":"tenant-9")", R"("t":"*")"},                  // the scope's tenant
      {R"("r":"shop::Mailer")", R"("r":"shop::Billing")"},  // an invocation record
      {R"("sn":"orders")", R"("sn":"billing")"},            // the sending service
      {R"("t":"store_test::OrderCreated")", R"("t":"store_test::AuditEvent")"},  // the type
  };
  for (const auto& [from, to] : tamperings) {
    const SignatureCheck check = check_envelope_signature(replaced(json, from, to), keys);
    EXPECT_EQ(check.verdict, SignatureVerdict::Invalid) << from;
    EXPECT_NE(check.reason.find("does not match"), std::string::npos) << check.reason;
  }
  // Bytes appended after the signature, or inserted before it.
  EXPECT_NE(check_envelope_signature(json + " ", keys).verdict, SignatureVerdict::Valid);
  EXPECT_NE(
      check_envelope_signature(replaced(json, R"({"v":1,)", R"({"v":1,"x":0,)"), keys).verdict,
      SignatureVerdict::Valid);
}

TEST(EnvelopeSigningTests, UnknownKeyOrForgedMac_FailsTheCheck) {
  const SigningKeyRing signer = ring({{"other", secret('x')}});
  const SigningKeyRing receiver = ring({{"k1", secret('a')}});
  const SignatureCheck unknown = check_envelope_signature(signed_json(signer), receiver);
  EXPECT_EQ(unknown.verdict, SignatureVerdict::Invalid);
  EXPECT_NE(unknown.reason.find("not in the key ring"), std::string::npos);

  // The same key id with another secret: an attacker who knows the id but not the key.
  const SigningKeyRing impostor = ring({{"k1", secret('z')}});
  EXPECT_EQ(check_envelope_signature(signed_json(impostor), receiver).verdict,
            SignatureVerdict::Invalid);

  std::string garbled = signed_json(receiver);
  garbled.replace(garbled.size() - 10, 4, "!!!!");
  EXPECT_EQ(check_envelope_signature(garbled, receiver).verdict, SignatureVerdict::Invalid);
}

// Rotation: receivers list the new key second, then every sender moves it first, then the old
// key goes. Every step accepts what every other step signs.
TEST(EnvelopeSigningTests, KeyRotation_EveryStepAcceptsTheOthersSignatures) {
  const SigningKey old_key{"2026-11", secret('o')};
  const SigningKey new_key{"2026-12", secret('n')};
  const SigningKeyRing before = ring({old_key});
  const SigningKeyRing adding = ring({old_key, new_key});
  const SigningKeyRing switched = ring({new_key, old_key});
  const SigningKeyRing after = ring({new_key});

  EXPECT_EQ(check_envelope_signature(signed_json(before), adding).verdict, SignatureVerdict::Valid);
  EXPECT_EQ(check_envelope_signature(signed_json(adding), switched).verdict,
            SignatureVerdict::Valid);
  EXPECT_EQ(check_envelope_signature(signed_json(switched), adding).verdict,
            SignatureVerdict::Valid);
  EXPECT_EQ(check_envelope_signature(signed_json(switched), after).verdict,
            SignatureVerdict::Valid);
  // Once the old key is gone, what it signs is refused.
  EXPECT_EQ(check_envelope_signature(signed_json(before), after).verdict,
            SignatureVerdict::Invalid);
}

TEST(EnvelopeSigningTests, AdmitEnvelope_FollowsTheMode) {
  const SigningKeyRing keys = ring({{"k1", secret('a')}});
  const std::string unsigned_json = envelope_json();
  const std::string good = signed_json(keys);
  const std::string bad = replaced(good, R"("amount":-12)", R"("amount":12)");
  const EnvelopeSigning off{EnvelopeSigningMode::Off, keys};
  const EnvelopeSigning sign{EnvelopeSigningMode::Sign, keys};
  const EnvelopeSigning require{EnvelopeSigningMode::Require, keys};

  EXPECT_TRUE(admit_envelope(unsigned_json, off).ok());
  EXPECT_TRUE(admit_envelope(bad, off).ok());  // Off: the transport is the trust boundary

  EXPECT_TRUE(admit_envelope(unsigned_json, sign).ok());
  EXPECT_TRUE(admit_envelope(good, sign).ok());
  EXPECT_EQ(admit_envelope(bad, sign).code(), absl::StatusCode::kPermissionDenied);

  EXPECT_EQ(admit_envelope(unsigned_json, require).code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(admit_envelope(unsigned_json, require).message().find("unsigned"), std::string::npos);
  EXPECT_TRUE(admit_envelope(good, require).ok());
  EXPECT_EQ(admit_envelope(bad, require).code(), absl::StatusCode::kPermissionDenied);
}

}  // namespace
}  // namespace whizbang
