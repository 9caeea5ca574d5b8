#include "conflux/crypto/rsa_private.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <stdexcept>

#include "conflux/crypto/ct.hpp"
#include "conflux/crypto/pem.hpp"
#include "pkey.hpp"

namespace conflux::crypto {
namespace {

constexpr std::string_view kPrivatePem = "RSA PRIVATE KEY";
constexpr std::string_view kPublicPem = "RSA PUBLIC KEY";

std::vector<std::uint8_t> public_der(const EVP_PKEY* key) {
  unsigned char* out = nullptr;
  const int n = i2d_PublicKey(key, &out);
  if (n <= 0) {
    ERR_clear_error();
    return {};
  }
  std::vector<std::uint8_t> der(out, out + n);
  OPENSSL_free(out);
  return der;
}

std::vector<std::uint8_t> private_der(const EVP_PKEY* key) {
  unsigned char* out = nullptr;
  const int n = i2d_PrivateKey(key, &out);
  if (n <= 0) {
    ERR_clear_error();
    return {};
  }
  std::vector<std::uint8_t> der(out, out + n);
  OPENSSL_clear_free(out, static_cast<std::size_t>(n));
  return der;
}

}  // namespace

RsaPrivateKey RsaPrivateKey::generate(std::size_t bits) {
  if (bits < 1024 || bits > 4096 || bits % 8 != 0) throw std::invalid_argument("RSA key size");
  detail::PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr));
  EVP_PKEY* raw = nullptr;
  const bool ok = ctx && EVP_PKEY_keygen_init(ctx.get()) == 1 &&
                  EVP_PKEY_CTX_set_rsa_keygen_bits(ctx.get(), static_cast<int>(bits)) == 1 &&
                  EVP_PKEY_generate(ctx.get(), &raw) == 1;
  detail::PkeyPtr key(raw);
  if (!ok || !key) {
    ERR_clear_error();
    throw std::runtime_error("RSA key generation failed");
  }
  auto pub = RsaPublicKey::from_pkcs1_der(public_der(key.get()));
  if (!pub) throw std::runtime_error("RSA key generation made an unusable key");
  return RsaPrivateKey(std::shared_ptr<evp_pkey_st>(std::move(key)), std::move(*pub));
}

std::optional<RsaPrivateKey> RsaPrivateKey::from_pkcs1_der(std::span<const std::uint8_t> der) {
  // A 4096-bit key takes about 2,350 bytes of DER.
  if (der.empty() || der.size() > 2600) return std::nullopt;
  const unsigned char* p = der.data();
  detail::PkeyPtr key(d2i_PrivateKey(EVP_PKEY_RSA, nullptr, &p, static_cast<long>(der.size())));
  const bool whole = key && p == der.data() + der.size();
  if (!whole) {
    ERR_clear_error();
    return std::nullopt;
  }
  // Canonical (one encoding per key), then the public half's rules.
  auto again = private_der(key.get());
  const bool canonical = again.size() == der.size() && ct_equal(again, der);
  OPENSSL_cleanse(again.data(), again.size());
  if (!canonical) return std::nullopt;
  detail::PkeyCtxPtr check(EVP_PKEY_CTX_new_from_pkey(nullptr, key.get(), nullptr));
  const bool consistent = check && EVP_PKEY_pairwise_check(check.get()) == 1;
  ERR_clear_error();
  if (!consistent) return std::nullopt;
  auto pub = RsaPublicKey::from_pkcs1_der(public_der(key.get()));
  if (!pub) return std::nullopt;
  return RsaPrivateKey(std::shared_ptr<evp_pkey_st>(std::move(key)), std::move(*pub));
}

std::optional<RsaPrivateKey> RsaPrivateKey::from_pem(std::string_view pem) {
  auto der = pem_decode(pem, kPrivatePem);
  if (!der) return std::nullopt;
  auto key = from_pkcs1_der(*der);
  OPENSSL_cleanse(der->data(), der->size());
  return key;
}

std::vector<std::uint8_t> RsaPrivateKey::to_pkcs1_der() const { return private_der(key_.get()); }

std::string RsaPrivateKey::to_pem() const {
  auto der = to_pkcs1_der();
  std::string pem = pem_encode(der, kPrivatePem);
  OPENSSL_cleanse(der.data(), der.size());
  return pem;
}

std::vector<std::uint8_t> RsaPrivateKey::sign_digest(std::span<const std::uint8_t> digest) const {
  if (digest.empty() || digest.size() + 11 > (bits() + 7) / 8) throw std::invalid_argument("RSA sign: data size");
  detail::PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, key_.get(), nullptr));
  std::vector<std::uint8_t> sig((bits() + 7) / 8);
  std::size_t len = sig.size();
  // EVP_PKEY_sign without a signature digest set pads the input as given
  // (PKCS#1 v1.5 type 1), which is tor's raw-digest signature.
  const bool ok = ctx && EVP_PKEY_sign_init(ctx.get()) == 1 &&
                  EVP_PKEY_CTX_set_rsa_padding(ctx.get(), RSA_PKCS1_PADDING) == 1 &&
                  EVP_PKEY_sign(ctx.get(), sig.data(), &len, digest.data(), digest.size()) == 1;
  ERR_clear_error();
  if (!ok || len != sig.size()) throw std::runtime_error("RSA signing failed");
  return sig;
}

std::string rsa_public_pem(const RsaPublicKey& key) { return pem_encode(key.der(), kPublicPem); }

}  // namespace conflux::crypto
