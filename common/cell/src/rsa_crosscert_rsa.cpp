// RSA signing and verification of the RSA->Ed25519 cross-certificate, on
// OpenSSL 3 EVP. Kept apart so that OpenSSL headers stay out of the rest of
// common/cell.
//
// The signature is PKCS#1 v1.5 type-1 padding around the bare 32-byte
// digest, with no DigestInfo: tor produces it with RSA_private_encrypt and
// checks it with RSA_public_decrypt (crypto_pk_public_checksig). In EVP terms
// that is EVP_PKEY_sign / EVP_PKEY_verify_recover with RSA_PKCS1_PADDING and
// no signature digest set.
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <limits>
#include <memory>

#include "conflux/cell/rsa_crosscert.hpp"

namespace conflux::cell {
namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* k) const noexcept { EVP_PKEY_free(k); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
struct PkeyCtxFree {
  void operator()(EVP_PKEY_CTX* c) const noexcept { EVP_PKEY_CTX_free(c); }
};
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree>;

// Runs a d2i_* parser over the whole of `der`; null unless it parses and
// consumes every byte and yields an RSA key.
template <class Parse>
PkeyPtr parse_all(bytes::ByteSpan der, Parse parse) {
  if (der.empty() || der.size() > static_cast<std::size_t>(std::numeric_limits<long>::max())) return nullptr;
  const unsigned char* p = der.data();
  PkeyPtr key(parse(&p, static_cast<long>(der.size())));
  if (!key || p != der.data() + der.size() || EVP_PKEY_get_base_id(key.get()) != EVP_PKEY_RSA) return nullptr;
  return key;
}

PkeyPtr parse_rsa_public(bytes::ByteSpan der) {
  // PKCS#1 RSAPublicKey is what tor writes in descriptors; an X.509
  // certificate (the CERTS type-2 identity cert) carries SubjectPublicKeyInfo.
  PkeyPtr key = parse_all(der, [](const unsigned char** p, long n) {
    return d2i_PublicKey(EVP_PKEY_RSA, nullptr, p, n);
  });
  if (!key) key = parse_all(der, [](const unsigned char** p, long n) { return d2i_PUBKEY(nullptr, p, n); });
  ERR_clear_error();
  return key;
}

PkeyPtr parse_rsa_private(bytes::ByteSpan der) {
  // Accepts PKCS#1 RSAPrivateKey and PKCS#8.
  PkeyPtr key = parse_all(der, [](const unsigned char** p, long n) {
    return d2i_AutoPrivateKey(nullptr, p, n);
  });
  ERR_clear_error();
  return key;
}

}  // namespace

Result<crypto::Ed25519Public, CertError> verify_rsa_crosscert(const RsaCrosscert& cc,
                                                              bytes::ByteSpan rsa_public_der,
                                                              std::uint64_t now) {
  PkeyPtr key = parse_rsa_public(rsa_public_der);
  if (!key) return Unexpected{CertError::BadRsaKey};
  if (now > cc.expires_at()) return Unexpected{CertError::Expired};

  const int modulus_len = EVP_PKEY_get_size(key.get());
  // A genuine signature is exactly as long as the modulus; anything else is
  // not one tor could have made.
  if (modulus_len <= 0 || cc.signature.size() != static_cast<std::size_t>(modulus_len))
    return Unexpected{CertError::BadSignature};

  const auto digest = rsa_crosscert_digest(cc.ed25519_key, cc.expiration_hours);
  std::vector<std::uint8_t> recovered(static_cast<std::size_t>(modulus_len));
  std::size_t recovered_len = recovered.size();
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, key.get(), nullptr));
  const bool ok = ctx && EVP_PKEY_verify_recover_init(ctx.get()) == 1 &&
                  EVP_PKEY_CTX_set_rsa_padding(ctx.get(), RSA_PKCS1_PADDING) == 1 &&
                  EVP_PKEY_verify_recover(ctx.get(), recovered.data(), &recovered_len,
                                          cc.signature.data(), cc.signature.size()) == 1;
  ERR_clear_error();
  // The signed message must be the bare digest: exactly 32 bytes, no
  // DigestInfo, nothing after it.
  if (!ok || recovered_len != digest.size() ||
      CRYPTO_memcmp(recovered.data(), digest.data(), digest.size()) != 0)
    return Unexpected{CertError::BadSignature};
  return cc.ed25519_key;
}

Result<RsaCrosscert, CertError> sign_rsa_crosscert(const crypto::Ed25519Public& key,
                                                   std::uint32_t expiration_hours,
                                                   bytes::ByteSpan rsa_private_der) {
  PkeyPtr rsa = parse_rsa_private(rsa_private_der);
  if (!rsa) return Unexpected{CertError::BadRsaKey};
  const int modulus_len = EVP_PKEY_get_size(rsa.get());
  if (modulus_len <= 0) return Unexpected{CertError::BadRsaKey};
  if (modulus_len > std::numeric_limits<std::uint8_t>::max()) return Unexpected{CertError::TooLarge};

  RsaCrosscert cc;
  cc.ed25519_key = key;
  cc.expiration_hours = expiration_hours;
  const auto digest = rsa_crosscert_digest(key, expiration_hours);
  cc.signature.resize(static_cast<std::size_t>(modulus_len));
  std::size_t sig_len = cc.signature.size();
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, rsa.get(), nullptr));
  const bool ok = ctx && EVP_PKEY_sign_init(ctx.get()) == 1 &&
                  EVP_PKEY_CTX_set_rsa_padding(ctx.get(), RSA_PKCS1_PADDING) == 1 &&
                  EVP_PKEY_sign(ctx.get(), cc.signature.data(), &sig_len, digest.data(), digest.size()) == 1;
  ERR_clear_error();
  if (!ok || sig_len != cc.signature.size()) return Unexpected{CertError::BadRsaKey};
  return cc;
}

}  // namespace conflux::cell
