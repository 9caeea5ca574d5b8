#include "conflux/crypto/relay_crypto_types.hpp"

namespace conflux::crypto {

const char* to_string(RelayCryptoError e) noexcept {
  switch (e) {
    case RelayCryptoError::BadKeyMaterialLength:
      return "relay crypto: key material must be 72 or 92 bytes";
    case RelayCryptoError::TooManyHops:
      return "relay crypto: too many hops";
    case RelayCryptoError::NoSuchHop:
      return "relay crypto: no such hop";
    case RelayCryptoError::NotRecognized:
      return "relay crypto: inbound cell not recognized by any hop";
  }
  return "relay crypto: unknown error";
}

}  // namespace conflux::crypto
