#include "conflux/crypto/x509_rsa_identity.hpp"

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>
#include <vector>

namespace conflux::crypto {
namespace {

struct X509Free {
  void operator()(X509* x) const noexcept { X509_free(x); }
};

}  // namespace

std::optional<RsaPublicKey> rsa_identity_from_x509(std::span<const std::uint8_t> der) {
  if (der.empty() || der.size() > 8192) return std::nullopt;
  const unsigned char* p = der.data();
  std::unique_ptr<X509, X509Free> cert(d2i_X509(nullptr, &p, static_cast<long>(der.size())));
  if (!cert || p != der.data() + der.size()) return std::nullopt;  // trailing bytes
  EVP_PKEY* key = X509_get0_pubkey(cert.get());                  // owned by the certificate
  if (key == nullptr || EVP_PKEY_get_base_id(key) != EVP_PKEY_RSA) return std::nullopt;
  if (X509_verify(cert.get(), key) != 1) return std::nullopt;  // self-signed, as tor requires
  const int n = i2d_PublicKey(key, nullptr);                    // PKCS#1 RSAPublicKey for RSA keys
  if (n <= 0) return std::nullopt;
  std::vector<std::uint8_t> pkcs1(static_cast<std::size_t>(n));
  unsigned char* out = pkcs1.data();
  if (i2d_PublicKey(key, &out) != n) return std::nullopt;
  return RsaPublicKey::from_pkcs1_der(pkcs1);
}

}  // namespace conflux::crypto
