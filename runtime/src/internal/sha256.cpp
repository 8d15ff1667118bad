#include "whizbang/internal/sha256.hpp"

#include <openssl/evp.h>

#include <cstdlib>
#include <memory>

namespace whizbang::internal {
namespace {

const EVP_MD* sha256_md() {
  static const EVP_MD* md = [] {
    EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    if (fetched == nullptr) std::abort();  // OpenSSL without SHA-256 cannot run this library.
    return fetched;
  }();
  return md;
}

struct ContextDeleter {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

EVP_MD_CTX* thread_context() {
  thread_local std::unique_ptr<EVP_MD_CTX, ContextDeleter> ctx(EVP_MD_CTX_new());
  return ctx.get();
}

}  // namespace

Sha256Digest sha256(std::string_view data) {
  Sha256Digest digest{};
  EVP_MD_CTX* ctx = thread_context();
  unsigned int length = 0;
  if (ctx == nullptr || EVP_DigestInit_ex2(ctx, sha256_md(), nullptr) != 1 ||
      EVP_DigestUpdate(ctx, data.data(), data.size()) != 1 ||
      EVP_DigestFinal_ex(ctx, digest.data(), &length) != 1) {
    std::abort();  // Only reachable on allocation failure inside OpenSSL.
  }
  return digest;
}

}  // namespace whizbang::internal
