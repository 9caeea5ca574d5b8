#include "conflux/crypto/relay_crypto_client.hpp"

namespace conflux::crypto {

Result<HopNum, RelayCryptoError> ClientRelayCrypto::add_hop(const RelayCryptoKeys& keys) {
  if (count_ == kMaxHops) return Unexpected{RelayCryptoError::TooManyHops};
  hops_[count_].emplace(keys);
  ++count_;
  return HopNum(static_cast<HopNum::rep>(count_));
}

const RelayCryptoHop* ClientRelayCrypto::find(HopNum hop) const noexcept {
  const std::size_t n = hop.value();
  if (n == 0 || n > count_) return nullptr;
  return &*hops_[n - 1];
}

Result<SendmeDigest, RelayCryptoError> ClientRelayCrypto::encrypt_outbound(HopNum target, RelayPayload payload) {
  if (find(target) == nullptr) return Unexpected{RelayCryptoError::NoSuchHop};
  std::size_t i = target.value();  // 1-based; checked above
  const SendmeDigest d = hops_[i - 1]->forward().seal(payload);
  // Innermost layer first: the target's Kf, then outward to hop 1, so each
  // relay on the way peels exactly its own layer (tor-spec 5.5.2.1).
  for (; i > 0; --i) hops_[i - 1]->forward().apply_keystream(payload);
  return d;
}

Result<HopNum, RelayCryptoError> ClientRelayCrypto::decrypt_inbound(RelayPayload payload) {
  for (std::size_t i = 0; i < count_; ++i) {
    RelayCryptoLayer& layer = hops_[i]->backward();
    layer.apply_keystream(payload);
    if (layer.recognize(payload)) return HopNum(static_cast<HopNum::rep>(i + 1));
  }
  return Unexpected{RelayCryptoError::NotRecognized};
}

std::optional<SendmeDigest> ClientRelayCrypto::last_sent_digest(HopNum hop) const {
  const RelayCryptoHop* h = find(hop);
  if (h == nullptr) return std::nullopt;
  return h->forward().last_digest();
}

std::optional<SendmeDigest> ClientRelayCrypto::last_received_digest(HopNum hop) const {
  const RelayCryptoHop* h = find(hop);
  if (h == nullptr) return std::nullopt;
  return h->backward().last_digest();
}

}  // namespace conflux::crypto
