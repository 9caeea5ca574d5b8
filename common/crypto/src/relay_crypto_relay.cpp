#include "conflux/crypto/relay_crypto_relay.hpp"

namespace conflux::crypto {

ForwardVerdict RelayHopCrypto::decrypt_forward(RelayPayload payload) {
  hop_.forward().apply_keystream(payload);
  return hop_.forward().recognize(payload) ? ForwardVerdict::Recognized : ForwardVerdict::Forward;
}

SendmeDigest RelayHopCrypto::originate_backward(RelayPayload payload) {
  const SendmeDigest d = hop_.backward().seal(payload);
  hop_.backward().apply_keystream(payload);
  return d;
}

void RelayHopCrypto::relay_backward(RelayPayload payload) { hop_.backward().apply_keystream(payload); }

}  // namespace conflux::crypto
