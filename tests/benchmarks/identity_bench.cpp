// Derived ids vs raw SHA-256 of the same canonical string; MessageId minting.
//   build/tests/benchmarks/identity_bench
#include <benchmark/benchmark.h>
#include <openssl/evp.h>

#include "whizbang/ids/derived_identity.hpp"

namespace whizbang {
namespace {

const Uuid kSource = *Uuid::parse("34c6a999-8118-7194-8a3a-be71e66c0e98");
constexpr std::string_view kService = "billing";
constexpr std::string_view kHandler = "app::billing::ChargeCard";
constexpr std::string_view kType = "app::orders::OrderShipped";

// Baseline: one EVP_Digest call over the canonical string, built outside the loop.
void BM_RawSha256_EvpDigest(benchmark::State& state) {
  const std::string canonical = EmissionIdentity::canonical(kSource, kService, kHandler, kType, 2);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  for (auto _ : state) {
    EVP_Digest(canonical.data(), canonical.size(), digest, &length, EVP_sha256(), nullptr);
    benchmark::DoNotOptimize(digest);
  }
}
BENCHMARK(BM_RawSha256_EvpDigest);

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
