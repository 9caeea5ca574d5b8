#include "evp_algorithms.hpp"

#include <memory>

#include "conflux/crypto/error.hpp"

namespace conflux::crypto::detail {
namespace {

struct MdFree {
  void operator()(EVP_MD* m) const noexcept { EVP_MD_free(m); }
};
struct CipherFree {
  void operator()(EVP_CIPHER* c) const noexcept { EVP_CIPHER_free(c); }
};

EVP_MD* fetch_md(const char* name) {
  EVP_MD* m = EVP_MD_fetch(nullptr, name, nullptr);
  if (m == nullptr) throw CryptoError(std::string("EVP_MD_fetch ") + name);
  return m;
}
EVP_CIPHER* fetch_cipher(const char* name) {
  EVP_CIPHER* c = EVP_CIPHER_fetch(nullptr, name, nullptr);
  if (c == nullptr) throw CryptoError(std::string("EVP_CIPHER_fetch ") + name);
  return c;
}

}  // namespace

#define CONFLUX_FETCHED_MD(fn, name)                                                     \
  const EVP_MD* fn() {                                                                   \
    static const std::unique_ptr<EVP_MD, MdFree> m(fetch_md(name)); \
    return m.get();                                                                      \
  }
#define CONFLUX_FETCHED_CIPHER(fn, name)                                                              \
  const EVP_CIPHER* fn() {                                                                            \
    static const std::unique_ptr<EVP_CIPHER, CipherFree> c(fetch_cipher(name)); \
    return c.get();                                                                                   \
  }

CONFLUX_FETCHED_MD(md_sha1, "SHA1")
CONFLUX_FETCHED_MD(md_sha256, "SHA256")
CONFLUX_FETCHED_MD(md_sha3_256, "SHA3-256")
CONFLUX_FETCHED_MD(md_shake256, "SHAKE256")
CONFLUX_FETCHED_CIPHER(cipher_aes128_ctr, "AES-128-CTR")
CONFLUX_FETCHED_CIPHER(cipher_aes256_ctr, "AES-256-CTR")

EVP_MAC* mac_hmac() {
  static const std::unique_ptr<EVP_MAC, decltype(&EVP_MAC_free)> m(EVP_MAC_fetch(nullptr, "HMAC", nullptr),
                                                                   &EVP_MAC_free);
  if (!m) throw CryptoError("EVP_MAC_fetch HMAC");
  return m.get();
}

EVP_KDF* kdf_hkdf() {
  static const std::unique_ptr<EVP_KDF, decltype(&EVP_KDF_free)> k(EVP_KDF_fetch(nullptr, "HKDF", nullptr),
                                                                   &EVP_KDF_free);
  if (!k) throw CryptoError("EVP_KDF_fetch HKDF");
  return k.get();
}

}  // namespace conflux::crypto::detail
