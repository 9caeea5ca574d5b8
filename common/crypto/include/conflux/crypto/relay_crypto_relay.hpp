#pragma once
// The relay side of tor1 relay crypto: one hop's keys for one circuit
// (tor-spec 5.5.2.2 and 5.5.3).
#include <cstdint>
#include <optional>

#include "conflux/crypto/relay_crypto_hop.hpp"
#include "conflux/crypto/relay_crypto_types.hpp"

namespace conflux::crypto {

enum class ForwardVerdict : std::uint8_t {
  Recognized,  // the cell is for this relay: handle it
  Forward,     // not ours: pass it to the next hop (or close if there is none)
};

class RelayHopCrypto {
 public:
  explicit RelayHopCrypto(const RelayCryptoKeys& keys) : hop_(keys) {}

  // A cell arriving from the client side: removes our Kf layer, then checks
  // Recognized and the digest. On Forward the running digest is unchanged
  // and the payload is exactly what the next hop must receive.
  [[nodiscard]] ForwardVerdict decrypt_forward(RelayPayload payload);

  // A cell we originate toward the client: seals it with Db's running
  // digest and encrypts with Kb. Returns the full digest (SENDME tag).
  SendmeDigest originate_backward(RelayPayload payload);

  // A cell from further out travelling to the client: adds our Kb layer.
  void relay_backward(RelayPayload payload);

  // SENDME v1 tags: digest of the last cell recognized from the client /
  // the last cell we originated toward it.
  [[nodiscard]] const std::optional<SendmeDigest>& last_received_digest() const noexcept {
    return hop_.forward().last_digest();
  }
  [[nodiscard]] const std::optional<SendmeDigest>& last_sent_digest() const noexcept {
    return hop_.backward().last_digest();
  }

 private:
  RelayCryptoHop hop_;
};

}  // namespace conflux::crypto
