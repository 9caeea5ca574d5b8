#include "conflux/crypto/rsa.hpp"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include "conflux/crypto/ct.hpp"
#include "conflux/crypto/digest.hpp"
#include "pkey.hpp"

namespace conflux::crypto {
namespace {

struct BnFree {
  void operator()(BIGNUM* b) const noexcept { BN_free(b); }
};

bool exponent_is_65537(const EVP_PKEY* key) {
  BIGNUM* raw = nullptr;
  if (EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_RSA_E, &raw) != 1) return false;
  std::unique_ptr<BIGNUM, BnFree> e(raw);
  return BN_is_word(e.get(), 65537) == 1;
}

}  // namespace

std::optional<RsaPublicKey> RsaPublicKey::from_pkcs1_der(std::span<const std::uint8_t> der) {
  // Keys of 4096 bits take 526 bytes of DER; more is not a key we accept.
  if (der.empty() || der.size() > 600) return std::nullopt;
  const unsigned char* p = der.data();
  detail::PkeyPtr key(d2i_PublicKey(EVP_PKEY_RSA, nullptr, &p, static_cast<long>(der.size())));
  const bool whole = key && p == der.data() + der.size();
  if (!whole) {
    ERR_clear_error();
    return std::nullopt;
  }
  const int bits = EVP_PKEY_get_bits(key.get());
  if (bits < 1024 || bits > 4096 || !exponent_is_65537(key.get())) {
    ERR_clear_error();
    return std::nullopt;
  }
  // Canonical: the fingerprint is over these bytes, so a second encoding of
  // the same key must not pass for another identity.
  unsigned char* out = nullptr;
  const int n = i2d_PublicKey(key.get(), &out);
  const bool canonical = n == static_cast<int>(der.size()) && ct_equal({out, der.size()}, der);
  OPENSSL_free(out);
  if (!canonical) {
    ERR_clear_error();
    return std::nullopt;
  }
  RsaPublicKey k;
  k.key_ = std::shared_ptr<evp_pkey_st>(std::move(key));
  k.der_.assign(der.begin(), der.end());
  k.fingerprint_ = sha1(der);
  k.bits_ = static_cast<std::size_t>(bits);
  return k;
}

bool RsaPublicKey::verify_digest(std::span<const std::uint8_t> digest,
                                 std::span<const std::uint8_t> signature) const noexcept {
  if (digest.empty() || digest.size() + 11 > (bits_ + 7) / 8 || signature.size() != (bits_ + 7) / 8) return false;
  detail::PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, key_.get(), nullptr));
  std::array<std::uint8_t, 512> recovered{};
  std::size_t len = recovered.size();
  const bool ok = ctx && EVP_PKEY_verify_recover_init(ctx.get()) == 1 &&
                  EVP_PKEY_CTX_set_rsa_padding(ctx.get(), RSA_PKCS1_PADDING) == 1 &&
                  EVP_PKEY_verify_recover(ctx.get(), recovered.data(), &len, signature.data(), signature.size()) == 1 &&
                  len == digest.size() && ct_equal({recovered.data(), len}, digest);
  ERR_clear_error();
  return ok;
}

}  // namespace conflux::crypto
