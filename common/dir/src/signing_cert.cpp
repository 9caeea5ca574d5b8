#include "conflux/dir/signing_cert.hpp"

#include "conflux/cell/ed25519_cert.hpp"

namespace conflux::dir {

DirResult<crypto::Ed25519Public> verify_signing_cert(bytes::ByteSpan cert_bytes,
                                                     const crypto::Ed25519Public& identity,
                                                     std::uint64_t now) {
  if (cert_bytes.size() > kMaxSigningCertLen) return dir_fail(DirErrc::BadCert);
  auto cert = cell::decode_ed25519_cert(cert_bytes);
  if (!cert || cert->body.cert_type != cell::CertType::IdentityVSigning) return dir_fail(DirErrc::BadCert);
  auto signing = cert->certified_ed25519_key();
  if (!signing) return dir_fail(DirErrc::BadCert);
  // Extension 4 must name the identity (a type-4 cert must carry it).
  auto ext = cert->signed_with_key();
  if (!ext) return dir_fail(DirErrc::BadCert);
  if (*ext != identity) return dir_fail(DirErrc::CertMismatch);
  auto checked = cell::verify_ed25519_cert(*cert, identity, now);
  if (!checked) {
    switch (checked.error()) {
      case cell::CertError::Expired: return dir_fail(DirErrc::CertExpired);
      case cell::CertError::SigningKeyMismatch: return dir_fail(DirErrc::CertMismatch);
      default: return dir_fail(DirErrc::BadCert);
    }
  }
  return *signing;
}

std::vector<std::uint8_t> make_signing_cert(const crypto::Ed25519Keypair& identity,
                                            const crypto::Ed25519Public& signing_key,
                                            std::uint64_t expires_at) {
  cell::Ed25519CertBody body;
  body.cert_type = cell::CertType::IdentityVSigning;
  body.expiration_hours = cell::cert_expiration_hours(expires_at);
  body.key_type = cell::CertKeyType::Ed25519;
  body.certified_key = signing_key;
  auto cert = cell::sign_ed25519_cert(std::move(body), identity, cell::IncludeSigningKey::Yes);
  if (!cert) return {};
  auto enc = cell::encode_ed25519_cert(*cert);
  return enc ? std::move(*enc) : std::vector<std::uint8_t>{};
}

}  // namespace conflux::dir
