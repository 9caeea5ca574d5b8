#pragma once
// tor1 circuit key material (tor-spec 5.2.2 KDF-RFC5869, prop 332 for
// ntor-v3): the handshake's KDF stream starts Df[20] | Db[20] | Kf[16] | Kb[16],
// then KH[20] for onion services only (ignored here).
#include <cstddef>
#include <cstdint>
#include <span>

#include "conflux/bytes/result.hpp"
#include "conflux/crypto/relay_crypto_types.hpp"
#include "conflux/crypto/secret.hpp"

namespace conflux::crypto {

struct RelayCryptoKeys {
  static constexpr std::size_t kDigestSeedLen = 20;  // HASH_LEN
  static constexpr std::size_t kCipherKeyLen = 16;   // KEY_LEN (AES-128)
  // Df | Db | Kf | Kb: what a client or relay circuit needs.
  static constexpr std::size_t kMaterialLen = 2 * kDigestSeedLen + 2 * kCipherKeyLen;  // 72
  // ... | KH: the same stream when the onion-service nonce is derived too.
  static constexpr std::size_t kMaterialLenWithKh = kMaterialLen + kDigestSeedLen;  // 92

  Secret<kDigestSeedLen> forward_digest_seed;   // Df: seeds the client->exit SHA-1
  Secret<kDigestSeedLen> backward_digest_seed;  // Db: seeds the exit->client SHA-1
  Secret<kCipherKeyLen> forward_key;            // Kf: AES-128-CTR client->exit
  Secret<kCipherKeyLen> backward_key;           // Kb: AES-128-CTR exit->client

  // Accepts exactly 72 or 92 bytes; any other length is a caller bug that we
  // report rather than silently truncating or reading past the end.
  [[nodiscard]] static Result<RelayCryptoKeys, RelayCryptoError> from_key_material(
      std::span<const std::uint8_t> material);
};

}  // namespace conflux::crypto
