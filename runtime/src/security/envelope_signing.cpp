#include "whizbang/security/envelope_signing.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <array>
#include <cstdlib>
#include <memory>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_split.h"
#include "fmt/format.h"
#include "whizbang/internal/absl_view.hpp"

namespace whizbang {
namespace {

constexpr std::size_t kMinSecretBytes = 32;
constexpr std::size_t kMaxKeyIdLength = 64;
constexpr std::size_t kMacBytes = 32;
// What follows the signed bytes: `,"sg":{"k":"<id>","m":"<mac>"}` and the closing brace.
constexpr std::string_view kSignatureOpen = R"(,"sg":{"k":")";
constexpr std::string_view kSignatureMac = R"(","m":")";
constexpr std::string_view kSignatureClose = R"("}})";
// Domain separation: a key used for envelopes can never vouch for anything else.
constexpr std::string_view kMacContext = "whizbang envelope v1\n";

using Mac = std::array<unsigned char, kMacBytes>;

using internal::absl_view;
using internal::std_view;

std::string_view trimmed(std::string_view text) {
  return std_view(absl::StripAsciiWhitespace(absl_view(text)));
}

bool valid_key_id(std::string_view id) {
  if (id.empty() || id.size() > kMaxKeyIdLength) return false;
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

EVP_MAC* hmac() {
  static EVP_MAC* mac = [] {
    EVP_MAC* fetched = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
    if (fetched == nullptr) std::abort();  // OpenSSL without HMAC cannot run this library.
    return fetched;
  }();
  return mac;
}

struct MacContextDeleter {
  void operator()(EVP_MAC_CTX* ctx) const { EVP_MAC_CTX_free(ctx); }
};

// HMAC-SHA256 over the context string and `parts` in order.
Mac compute_mac(const SigningKey& key, std::initializer_list<std::string_view> parts) {
  std::unique_ptr<EVP_MAC_CTX, MacContextDeleter> ctx(EVP_MAC_CTX_new(hmac()));
  char digest[] = "SHA256";
  const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                               OSSL_PARAM_END};
  Mac mac{};
  std::size_t length = 0;
  bool ok = ctx != nullptr &&
            EVP_MAC_init(ctx.get(), reinterpret_cast<const unsigned char*>(key.secret.data()),
                         key.secret.size(), params) == 1 &&
            EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(kMacContext.data()),
                           kMacContext.size()) == 1;
  for (std::string_view part : parts) {
    ok = ok && EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(part.data()),
                              part.size()) == 1;
  }
  ok = ok && EVP_MAC_final(ctx.get(), mac.data(), &length, mac.size()) == 1;
  if (!ok || length != kMacBytes) std::abort();  // only on allocation failure inside OpenSSL
  return mac;
}

// A signed envelope split into the bytes before its signature member, the key id and the MAC
// text. nullopt when `json` does not end with a signature member of the exact form written here.
struct SignedParts {
  std::string_view body;  // without the signature member and the closing brace
  std::string_view key_id;
  std::string_view mac;
};

std::optional<SignedParts> split_signature(std::string_view json) {
  const std::size_t open = json.rfind(kSignatureOpen);
  if (open == std::string_view::npos) return std::nullopt;
  std::string_view rest = json.substr(open + kSignatureOpen.size());
  const std::size_t mac_at = rest.find(kSignatureMac);
  if (mac_at == std::string_view::npos) return std::nullopt;
  SignedParts parts{json.substr(0, open), rest.substr(0, mac_at), {}};
  rest.remove_prefix(mac_at + kSignatureMac.size());
  if (!rest.ends_with(kSignatureClose)) return std::nullopt;
  parts.mac = rest.substr(0, rest.size() - kSignatureClose.size());
  if (!valid_key_id(parts.key_id)) return std::nullopt;
  return parts;
}

}  // namespace

absl::StatusOr<SigningKeyRing> SigningKeyRing::create(std::vector<SigningKey> keys) {
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const SigningKey& key = keys[i];
    if (!valid_key_id(key.id)) {
      return absl::InvalidArgumentError(
          fmt::format("signing key {}: its id must be 1 to {} letters, digits, '.', '_' or '-'",
                      i + 1, kMaxKeyIdLength));
    }
    if (key.secret.size() < kMinSecretBytes) {
      return absl::InvalidArgumentError(
          fmt::format("signing key '{}': the secret has {} bytes; at least {} are needed", key.id,
                      key.secret.size(), kMinSecretBytes));
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (keys[j].id == key.id) {
        return absl::InvalidArgumentError(fmt::format("signing key '{}' is listed twice", key.id));
      }
    }
  }
  SigningKeyRing ring;
  ring.keys_ = std::move(keys);
  return ring;
}

absl::StatusOr<SigningKeyRing> SigningKeyRing::parse(std::string_view text) {
  std::vector<SigningKey> keys;
  for (absl::string_view piece : absl::StrSplit(absl_view(text), ',', absl::SkipWhitespace())) {
    const std::string_view entry = std_view(piece);
    const std::size_t colon = entry.find(':');
    if (colon == std::string_view::npos) {
      return absl::InvalidArgumentError(
          fmt::format("signing key {}: expected id:base64-secret", keys.size() + 1));
    }
    SigningKey key;
    key.id = std::string(trimmed(entry.substr(0, colon)));
    if (!absl::Base64Unescape(absl_view(trimmed(entry.substr(colon + 1))), &key.secret)) {
      return absl::InvalidArgumentError(
          fmt::format("signing key '{}': the secret is not base64", key.id));
    }
    keys.push_back(std::move(key));
  }
  return create(std::move(keys));
}

absl::StatusOr<SigningKeyRing> SigningKeyRing::from_environment() {
  const char* text = std::getenv("WHIZBANG_SIGNING_KEYS");
  if (text == nullptr) return SigningKeyRing();
  absl::StatusOr<SigningKeyRing> ring = parse(text);
  if (!ring.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("WHIZBANG_SIGNING_KEYS: {}", std_view(ring.status().message())));
  }
  return ring;
}

const SigningKey* SigningKeyRing::find(std::string_view id) const {
  for (const SigningKey& key : keys_) {
    if (key.id == id) return &key;
  }
  return nullptr;
}

std::vector<std::string> SigningKeyRing::key_ids() const {
  std::vector<std::string> ids;
  for (const SigningKey& key : keys_) ids.push_back(key.id);
  return ids;
}

absl::Status EnvelopeSigning::validate() const {
  if (mode != EnvelopeSigningMode::Off && keys.empty()) {
    return absl::FailedPreconditionError(
        "envelope signing is on (Sign or Require) but the key ring is empty: set keys "
        "(WHIZBANG_SIGNING_KEYS) or turn signing Off");
  }
  return absl::OkStatus();
}

absl::Status sign_envelope_json(std::string& envelope_json, const SigningKeyRing& keys) {
  const SigningKey* key = keys.signing_key();
  if (key == nullptr) return absl::FailedPreconditionError("no signing key");
  if (std::optional<SignedParts> signed_parts = split_signature(envelope_json)) {
    envelope_json.resize(signed_parts->body.size());
    envelope_json.push_back('}');
  }
  if (envelope_json.size() < 2 || envelope_json.front() != '{' || envelope_json.back() != '}') {
    return absl::InvalidArgumentError("only a serialized envelope (a JSON object) can be signed");
  }
  const Mac mac = compute_mac(*key, {envelope_json});
  const std::string mac_text =
      absl::Base64Escape(absl::string_view(reinterpret_cast<const char*>(mac.data()), mac.size()));
  envelope_json.pop_back();
  envelope_json.append(kSignatureOpen).append(key->id).append(kSignatureMac).append(mac_text);
  envelope_json.append(kSignatureClose);
  return absl::OkStatus();
}

SignatureCheck check_envelope_signature(std::string_view envelope_json,
                                        const SigningKeyRing& keys) {
  SignatureCheck check;
  const std::optional<SignedParts> parts = split_signature(envelope_json);
  // Only the exact last member a signer writes is a signature: anything else is unsigned (and
  // an "sg" member elsewhere is a duplicate key or an unknown member to the decoder).
  if (!parts) return check;
  check.key_id = std::string(parts->key_id);
  check.verdict = SignatureVerdict::Invalid;
  const SigningKey* key = keys.find(parts->key_id);
  if (key == nullptr) {
    check.reason = fmt::format("signed with key '{}', which is not in the key ring", parts->key_id);
    return check;
  }
  std::string received;
  if (!absl::Base64Unescape(absl_view(parts->mac), &received) || received.size() != kMacBytes) {
    check.reason = "its signature is not a base64 HMAC-SHA256";
    return check;
  }
  const Mac expected = compute_mac(*key, {parts->body, "}"});
  if (CRYPTO_memcmp(expected.data(), received.data(), kMacBytes) != 0) {
    check.reason = fmt::format("its signature (key '{}') does not match its content", key->id);
    return check;
  }
  check.verdict = SignatureVerdict::Valid;
  return check;
}

absl::Status admit_envelope(std::string_view envelope_json, const EnvelopeSigning& signing) {
  if (signing.mode == EnvelopeSigningMode::Off) return absl::OkStatus();
  const SignatureCheck check = check_envelope_signature(envelope_json, signing.keys);
  switch (check.verdict) {
    case SignatureVerdict::Valid:
      return absl::OkStatus();
    case SignatureVerdict::Unsigned:
      if (signing.mode == EnvelopeSigningMode::Sign) return absl::OkStatus();
      return absl::PermissionDeniedError(
          "envelope refused: it is unsigned and this service requires signed envelopes");
    case SignatureVerdict::Invalid:
      break;
  }
  return absl::PermissionDeniedError(fmt::format("envelope refused: {}", check.reason));
}

}  // namespace whizbang
