// A signed envelope covers its whole security scope (docs/guide/16-security.md): changing any
// scope member of any hop — Current or Causation, first or later — after signing fails the check,
// and each change is one the receiver would otherwise have believed.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "scope_test_support.hpp"
#include "whizbang/security/envelope_signing.hpp"

namespace whizbang {
namespace {

SecurityScope whole_scope(const std::string& user) {
  SecurityScope scope{user, "tenant-1"};
  scope.customer_id = "cust-1";
  scope.organization_id = "org-1";
  scope.allowed_principals = {"group:sales"};
  scope.extensions = {{"region", "eu"}};
  scope.type = SecurityContextType::Impersonated;
  scope.actual_principal = "alice";
  scope.effective_principal = user;
  scope.roles = {"reader"};
  scope.permissions = {"orders:read"};
  scope.principals = {"user:alice"};
  scope.claims = {{"dept", "sales"}};
  return scope;
}

struct Tamper {
  const char* member;
  std::function<void(SecurityScope&)> change;
};

const std::vector<Tamper>& tampers() {
  static const std::vector<Tamper> all = {
      {"user", [](SecurityScope& s) { s.user_id = "mallory"; }},
      {"tenant", [](SecurityScope& s) { s.tenant_id = "*"; }},
      {"customer", [](SecurityScope& s) { s.customer_id = "cust-2"; }},
      {"organization", [](SecurityScope& s) { s.organization_id = "org-2"; }},
      {"allowed principals", [](SecurityScope& s) { s.allowed_principals.push_back("group:x"); }},
      {"is system", [](SecurityScope& s) { s.is_system = true; }},
      {"declared unscoped", [](SecurityScope& s) { s.declared_unscoped = true; }},
      {"extension value", [](SecurityScope& s) { s.extensions[0].value = "us"; }},
      {"extension added", [](SecurityScope& s) { s.extensions.push_back({"tier", "gold"}); }},
      {"type", [](SecurityScope& s) { s.type = SecurityContextType::System; }},
      {"actual principal", [](SecurityScope& s) { s.actual_principal = "mallory"; }},
      {"effective principal", [](SecurityScope& s) { s.effective_principal = "SYSTEM"; }},
      {"roles", [](SecurityScope& s) { s.roles.push_back("admin"); }},
      {"permissions", [](SecurityScope& s) { s.permissions.push_back("orders:delete"); }},
      {"principals", [](SecurityScope& s) { s.principals.push_back("group:admins"); }},
      {"claim value", [](SecurityScope& s) { s.claims["dept"] = "root"; }},
      {"claim removed", [](SecurityScope& s) { s.claims.clear(); }},
  };
  return all;
}

// Current, Causation, Current: the later Current hop's scope is a delta on the first's.
Envelope signed_shape() {
  SecurityScope later = whole_scope("alice");
  later.roles.push_back("approver");
  return scope_test::envelope_with({whole_scope("alice"), whole_scope("bob"), later},
                                   {HopType::Current, HopType::Causation, HopType::Current});
}

// `tampered` serialized with the signature `signed_json` carries (as if changed in flight).
std::string with_signature_of(const std::string& unsigned_json, const std::string& signed_json,
                              const Envelope& tampered) {
  std::string json = serialize_envelope(tampered);
  json.pop_back();  // the closing brace; the signature member and its brace follow
  json.append(signed_json, unsigned_json.size() - 1);
  return json;
}

TEST(ScopeSigningTests, TamperingWithAnyScopeMemberOfAnyHop_FailsTheSignatureCheck) {
  const SigningKeyRing ring = *SigningKeyRing::create({{"k1", std::string(32, 'k')}});
  const Envelope genuine = signed_shape();
  const std::string unsigned_json = serialize_envelope(genuine);
  std::string signed_json = unsigned_json;
  ASSERT_TRUE(sign_envelope_json(signed_json, ring).ok());
  ASSERT_EQ(check_envelope_signature(signed_json, ring).verdict, SignatureVerdict::Valid);
  ASSERT_EQ(check_envelope_signature(with_signature_of(unsigned_json, signed_json, genuine), ring)
                .verdict,
            SignatureVerdict::Valid);

  for (std::size_t hop = 0; hop < genuine.hops.size(); ++hop) {
    for (const Tamper& tamper : tampers()) {
      Envelope tampered = genuine;
      tamper.change(*tampered.hops[hop].scope);
      const std::string json = with_signature_of(unsigned_json, signed_json, tampered);
      EXPECT_EQ(check_envelope_signature(json, ring).verdict, SignatureVerdict::Invalid)
          << tamper.member << " of hop " << hop;
      // The change is in the bytes, and a receiver not checking would believe it.
      absl::StatusOr<Envelope> read = deserialize_envelope(json, store_test::resolve);
      ASSERT_TRUE(read.ok()) << read.status();
      EXPECT_EQ(read->hops[hop].scope, tampered.hops[hop].scope) << tamper.member << " " << hop;
      EXPECT_NE(read->hops[hop].scope, genuine.hops[hop].scope) << tamper.member << " " << hop;
    }
  }
}

// Under Require, the inbox's door refuses an envelope whose signed scope was changed.
TEST(ScopeSigningTests, ChangedPrincipals_AreRefusedUnderRequire) {
  const SigningKeyRing ring = *SigningKeyRing::create({{"k1", std::string(32, 'k')}});
  const Envelope genuine = signed_shape();
  const std::string unsigned_json = serialize_envelope(genuine);
  std::string signed_json = unsigned_json;
  ASSERT_TRUE(sign_envelope_json(signed_json, ring).ok());
  const EnvelopeSigning signing{EnvelopeSigningMode::Require, ring};
  EXPECT_TRUE(admit_envelope(signed_json, signing).ok());
  Envelope tampered = genuine;
  tampered.hops[2].scope->principals.push_back("group:admins");
  EXPECT_FALSE(
      admit_envelope(with_signature_of(unsigned_json, signed_json, tampered), signing).ok());
}

}  // namespace
}  // namespace whizbang
