#include "conflux/cell/cert_type.hpp"

namespace conflux::cell {

std::string_view to_string(CertError e) noexcept {
  switch (e) {
    case CertError::BadSignature: return "bad signature";
    case CertError::Expired: return "expired";
    case CertError::NoSigningKey: return "no signing key";
    case CertError::SigningKeyMismatch: return "signing key mismatch";
    case CertError::UnknownCriticalExtension: return "unknown extension affecting validation";
    case CertError::MissingSigningKeyExtension: return "missing signed-with-ed25519-key extension";
    case CertError::WrongKeyType: return "wrong certified key type";
    case CertError::BadExtension: return "malformed signed-with-ed25519-key extension";
    case CertError::TooLarge: return "too large to encode";
    case CertError::BadRsaKey: return "bad RSA key";
  }
  return "unknown certificate error";
}

}  // namespace conflux::cell
