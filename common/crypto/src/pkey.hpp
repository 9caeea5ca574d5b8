#pragma once
// RAII for EVP_PKEY and the raw-key conversions X25519 and Ed25519 share.
#include <array>
#include <cstdint>
#include <memory>
#include <span>

#include <openssl/evp.h>

namespace conflux::crypto::detail {

struct PkeyFree {
  void operator()(EVP_PKEY* k) const noexcept { EVP_PKEY_free(k); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
// shared_ptr<EVP_PKEY> takes a PkeyPtr directly, keeping PkeyFree as deleter.

struct PkeyCtxFree {
  void operator()(EVP_PKEY_CTX* c) const noexcept { EVP_PKEY_CTX_free(c); }
};
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree>;

// type is EVP_PKEY_X25519 or EVP_PKEY_ED25519.
PkeyPtr private_key_from_raw(int type, std::span<const std::uint8_t, 32> raw);
PkeyPtr public_key_from_raw(int type, std::span<const std::uint8_t, 32> raw);
std::array<std::uint8_t, 32> raw_public(const EVP_PKEY* key);

}  // namespace conflux::crypto::detail
