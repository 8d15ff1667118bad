// Derived ids vs raw SHA-256 of the same canonical string; MessageId minting.
//   build/tests/benchmarks/identity_bench
#include <benchmark/benchmark.h>
#include <openssl/evp.h>

#include <string>

#include "whizbang/ids/derived_identity.hpp"

namespace whizbang {
namespace {

const Uuid kSource = *Uuid::parse("34c6a999-8118-7194-8a3a-be71e66c0e98");
constexpr std::string_view kService = "billing";
constexpr std::string_view kHandler = "app::billing::ChargeCard";
constexpr std::string_view kType = "app::orders::OrderShipped";

// Baseline, and the floor derive is measured against: SHA-256 of the same canonical string
// derive hashes, done the cheapest way OpenSSL allows (the EVP_MD fetched once, one EVP_MD_CTX
// reused). EVP_Digest with EVP_sha256() would re-fetch the implementation on every call and
// inflate the baseline. Whatever derive costs above this is its own overhead (canonical text,
// layout, input checks); see docs/guide/05-emission-identity.md for what is hashed.
void BM_Baseline_Sha256FetchedOnceSameText(benchmark::State& state) {
  const std::string canonical = EmissionIdentity::canonical(kSource, kService, kHandler, kType, 2);
  EVP_MD* md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (md == nullptr || ctx == nullptr) {
    state.SkipWithError("OpenSSL has no SHA-256");
  } else {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    for (auto _ : state) {
      EVP_DigestInit_ex2(ctx, md, nullptr);
      EVP_DigestUpdate(ctx, canonical.data(), canonical.size());
      EVP_DigestFinal_ex(ctx, digest, &length);
      benchmark::DoNotOptimize(digest);
    }
  }
  EVP_MD_CTX_free(ctx);
  EVP_MD_free(md);
}
BENCHMARK(BM_Baseline_Sha256FetchedOnceSameText);

// The full derivation: canonical string, digest, layout, validation of inputs.
void BM_EmissionIdentity_Derive(benchmark::State& state) {
  std::int64_t ordinal = 0;
  for (auto _ : state) {
    auto id = EmissionIdentity::derive(kSource, kService, kHandler, kType, ordinal++ & 1023);
    benchmark::DoNotOptimize(id);
  }
}
BENCHMARK(BM_EmissionIdentity_Derive);

void BM_CompositeChildIdentity_Derive(benchmark::State& state) {
  std::int64_t ordinal = 0;
  for (auto _ : state) {
    auto id = CompositeChildIdentity::derive(kSource, ordinal++ & 1023, kType);
    benchmark::DoNotOptimize(id);
  }
}
BENCHMARK(BM_CompositeChildIdentity_Derive);

void BM_MessageId_Mint(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(MessageId::mint());
}
BENCHMARK(BM_MessageId_Mint);
BENCHMARK(BM_MessageId_Mint)->Threads(2);

}  // namespace
}  // namespace whizbang

BENCHMARK_MAIN();
