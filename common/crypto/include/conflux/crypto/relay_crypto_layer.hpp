#pragma once
// One direction of one hop: an AES-128-CTR key stream (zero IV, continuous
// across cells) and a SHA-1 running digest seeded with Df or Db. The client
// and the relay each hold one layer per hop and direction; which operations
// they call depends on their role (see relay_crypto_client.hpp and
// relay_crypto_relay.hpp).
#include <cstdint>
#include <optional>
#include <span>

#include "conflux/crypto/aes_ctr.hpp"
#include "conflux/crypto/running_sha1.hpp"
#include "conflux/crypto/relay_crypto_types.hpp"

namespace conflux::crypto {

class RelayCryptoLayer {
 public:
  RelayCryptoLayer(std::span<const std::uint8_t, 16> key, std::span<const std::uint8_t, 20> digest_seed);
  RelayCryptoLayer(RelayCryptoLayer&&) noexcept = default;
  RelayCryptoLayer& operator=(RelayCryptoLayer&&) noexcept = default;
  RelayCryptoLayer(const RelayCryptoLayer&) = delete;
  RelayCryptoLayer& operator=(const RelayCryptoLayer&) = delete;
  ~RelayCryptoLayer() = default;

  // XORs the next 509 bytes of this layer's key stream into the payload.
  void apply_keystream(RelayPayload payload);

  // Originating end, before encryption: zeroes Recognized, absorbs the
  // payload with a zero Digest field, writes the first 4 digest bytes into
  // the Digest field and records the full digest as last_digest().
  SendmeDigest seal(RelayPayload payload);

  // Receiving end, after this layer's decryption: true when Recognized is 0
  // and the Digest field matches; then the payload is absorbed and the full
  // digest recorded. Otherwise the running digest is left exactly as before
  // (the cell is not for this hop). Never modifies the payload.
  [[nodiscard]] bool recognize(ConstRelayPayload payload);

  // The full digest after the last cell sealed or recognized in this
  // direction (nullopt before the first one): the SENDME v1 tag.
  [[nodiscard]] const std::optional<SendmeDigest>& last_digest() const noexcept { return last_; }

 private:
  AesCtr cipher_;
  RunningSha1 digest_;
  // Where a candidate cell is absorbed before we know it is ours; on a match
  // it is swapped in, otherwise digest_ was never touched.
  RunningSha1 trial_;
  std::optional<SendmeDigest> last_;
};

}  // namespace conflux::crypto
