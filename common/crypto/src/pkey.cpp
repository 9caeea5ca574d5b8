#include "pkey.hpp"

#include "conflux/crypto/error.hpp"

namespace conflux::crypto::detail {

PkeyPtr private_key_from_raw(int type, std::span<const std::uint8_t, 32> raw) {
  PkeyPtr key(EVP_PKEY_new_raw_private_key(type, nullptr, raw.data(), raw.size()));
  if (!key) throw CryptoError("EVP_PKEY_new_raw_private_key");
  return key;
}

PkeyPtr public_key_from_raw(int type, std::span<const std::uint8_t, 32> raw) {
  return PkeyPtr(EVP_PKEY_new_raw_public_key(type, nullptr, raw.data(), raw.size()));
}

std::array<std::uint8_t, 32> raw_public(const EVP_PKEY* key) {
  std::array<std::uint8_t, 32> out{};
  std::size_t len = out.size();
  if (EVP_PKEY_get_raw_public_key(key, out.data(), &len) != 1 || len != out.size())
    throw CryptoError("EVP_PKEY_get_raw_public_key");
  return out;
}

}  // namespace conflux::crypto::detail
