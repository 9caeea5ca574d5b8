#pragma once
// The client (circuit origin) side of tor1 relay crypto: one RelayCryptoHop
// per hop, added as the circuit is extended (tor-spec 5.5.2.1 and 5.5.4).
#include <array>
#include <cstddef>
#include <optional>

#include "conflux/bytes/result.hpp"
#include "conflux/bytes/strong_int.hpp"
#include "conflux/crypto/relay_crypto_hop.hpp"
#include "conflux/crypto/relay_crypto_types.hpp"

namespace conflux::crypto {

class ClientRelayCrypto {
 public:
  // Tor circuits are 3-4 hops; 8 leaves room for onion-service paths
  // without any allocation.
  static constexpr std::size_t kMaxHops = 8;

  ClientRelayCrypto() = default;

  // Appends the next hop (the one the last CREATED2/EXTENDED2 reached).
  // Returns its hop number (the first hop is 1).
  [[nodiscard]] Result<HopNum, RelayCryptoError> add_hop(const RelayCryptoKeys& keys);
  [[nodiscard]] std::size_t hop_count() const noexcept { return count_; }

  // Originates a cell for hop `target`: seals it with that hop's forward
  // digest, then encrypts with Kf of target, target-1, ..., 1. Returns the
  // full digest (the SENDME tag to expect if this is the SENDME-triggering
  // DATA cell); NoSuchHop leaves the payload and all state untouched.
  [[nodiscard]] Result<SendmeDigest, RelayCryptoError> encrypt_outbound(HopNum target, RelayPayload payload);

  // Removes one backward layer per hop, starting at hop 1, until a hop
  // recognizes the cell; returns that hop. NotRecognized is a protocol
  // violation (tor closes the circuit): the key streams have advanced, so
  // the circuit cannot be used afterwards.
  [[nodiscard]] Result<HopNum, RelayCryptoError> decrypt_inbound(RelayPayload payload);

  // SENDME v1 tags per hop: the digest of the last cell we sent to / the
  // last cell we recognized from that hop. nullopt for an unknown hop or
  // before the first such cell.
  [[nodiscard]] std::optional<SendmeDigest> last_sent_digest(HopNum hop) const;
  [[nodiscard]] std::optional<SendmeDigest> last_received_digest(HopNum hop) const;

 private:
  [[nodiscard]] const RelayCryptoHop* find(HopNum hop) const noexcept;

  std::array<std::optional<RelayCryptoHop>, kMaxHops> hops_{};
  std::size_t count_ = 0;
};

}  // namespace conflux::crypto
