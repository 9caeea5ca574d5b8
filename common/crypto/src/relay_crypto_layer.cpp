#include "conflux/crypto/relay_crypto_layer.hpp"

#include <algorithm>
#include <utility>

namespace conflux::crypto {
namespace {

constexpr std::array<std::uint8_t, kRelayDigestLen> kZeroDigestField{};

}  // namespace

RelayCryptoLayer::RelayCryptoLayer(std::span<const std::uint8_t, 16> key,
                                   std::span<const std::uint8_t, 20> digest_seed)
    : cipher_(key) {
  // tor1 seeds the running digest by absorbing Df/Db as plain data (not HMAC).
  digest_.update(digest_seed);
}

void RelayCryptoLayer::apply_keystream(RelayPayload payload) { cipher_.apply(payload); }

SendmeDigest RelayCryptoLayer::seal(RelayPayload payload) {
  std::fill_n(payload.begin() + kRelayRecognizedOffset, kRelayRecognizedLen, std::uint8_t{0});
  std::fill_n(payload.begin() + kRelayDigestOffset, kRelayDigestLen, std::uint8_t{0});
  digest_.update(payload);
  const SendmeDigest d = digest_.peek();
  std::copy_n(d.begin(), kRelayDigestLen, payload.begin() + kRelayDigestOffset);
  last_ = d;
  return d;
}

bool RelayCryptoLayer::recognize(ConstRelayPayload payload) {
  // Almost every cell that is not ours fails here, after one layer of
  // decryption, without touching the digest.
  if ((payload[kRelayRecognizedOffset] | payload[kRelayRecognizedOffset + 1]) != 0) return false;

  // Absorb into a copy (the checkpoint) with the Digest field read as zero,
  // so the payload stays intact for forwarding whatever the outcome.
  trial_ = digest_;
  trial_.update(payload.first<kRelayDigestOffset>());
  trial_.update(kZeroDigestField);
  trial_.update(payload.subspan<kRelayDigestOffset + kRelayDigestLen>());
  const SendmeDigest d = trial_.peek();

  // The digest is not a secret from the party that sent the cell, but an
  // accumulate-then-test compare costs nothing and leaks nothing.
  std::uint8_t diff = 0;
  for (std::size_t i = 0; i < kRelayDigestLen; ++i)
    diff = static_cast<std::uint8_t>(diff | (d[i] ^ payload[kRelayDigestOffset + i]));
  if (diff != 0) return false;  // digest_ untouched: the checkpoint is restored

  std::swap(digest_, trial_);
  last_ = d;
  return true;
}

}  // namespace conflux::crypto
