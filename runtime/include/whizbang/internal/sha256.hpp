// SHA-256 through OpenSSL, with the EVP_MD fetched once per process and one digest context per
// thread, so a derivation costs one digest and no allocation of ours (OpenSSL 3.0's
// EVP_DigestInit_ex2 still re-creates its provider state on every call).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace whizbang::internal {

using Sha256Digest = std::array<std::uint8_t, 32>;

Sha256Digest sha256(std::string_view data);

}  // namespace whizbang::internal
