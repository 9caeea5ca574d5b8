#include "conflux/crypto/relay_crypto_keys.hpp"

namespace conflux::crypto {

Result<RelayCryptoKeys, RelayCryptoError> RelayCryptoKeys::from_key_material(
    std::span<const std::uint8_t> material) {
  if (material.size() != kMaterialLen && material.size() != kMaterialLenWithKh)
    return Unexpected{RelayCryptoError::BadKeyMaterialLength};
  // Order fixed by tor-spec 5.2.2: Df, Db, Kf, Kb (then KH, unused here).
  RelayCryptoKeys keys;
  keys.forward_digest_seed = Secret<kDigestSeedLen>(material.subspan<0, kDigestSeedLen>());
  keys.backward_digest_seed = Secret<kDigestSeedLen>(material.subspan<kDigestSeedLen, kDigestSeedLen>());
  keys.forward_key = Secret<kCipherKeyLen>(material.subspan<2 * kDigestSeedLen, kCipherKeyLen>());
  keys.backward_key =
      Secret<kCipherKeyLen>(material.subspan<2 * kDigestSeedLen + kCipherKeyLen, kCipherKeyLen>());
  return keys;
}

}  // namespace conflux::crypto
