#include "conflux/crypto/relay_crypto_hop.hpp"

namespace conflux::crypto {

RelayCryptoHop::RelayCryptoHop(const RelayCryptoKeys& keys)
    : forward_(keys.forward_key.view(), keys.forward_digest_seed.view()),
      backward_(keys.backward_key.view(), keys.backward_digest_seed.view()) {}

}  // namespace conflux::crypto
