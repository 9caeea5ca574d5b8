#include "conflux/crypto/digest.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <memory>
#include <stdexcept>

#include <openssl/params.h>
#include <openssl/kdf.h>

#include "conflux/crypto/error.hpp"
#include "conflux/crypto/secret.hpp"
#include "evp_algorithms.hpp"

namespace conflux::crypto {
namespace {

template <HashAlg A>
const EVP_MD* md_for() {
  if constexpr (A == HashAlg::Sha1) return detail::md_sha1();
  if constexpr (A == HashAlg::Sha256) return detail::md_sha256();
  if constexpr (A == HashAlg::Sha3_256) return detail::md_sha3_256();
}

EVP_MD_CTX* new_ctx() {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (ctx == nullptr) throw CryptoError("EVP_MD_CTX_new");
  return ctx;
}

void copy_ctx(EVP_MD_CTX* to, const EVP_MD_CTX* from) {
  if (EVP_MD_CTX_copy_ex(to, from) != 1) throw CryptoError("EVP_MD_CTX_copy_ex");
}

template <std::size_t N>
std::array<std::uint8_t, N> one_shot(const EVP_MD* md, Bytes data) {
  std::array<std::uint8_t, N> out{};
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), out.data(), &len, md, nullptr) != 1 || len != N)
    throw CryptoError("EVP_Digest");
  return out;
}

}  // namespace

template <HashAlg A>
Hasher<A>::Hasher() : ctx_(new_ctx()) {
  if (EVP_DigestInit_ex2(ctx_, md_for<A>(), nullptr) != 1) {
    EVP_MD_CTX_free(ctx_);
    throw CryptoError("EVP_DigestInit_ex2");
  }
}

template <HashAlg A>
Hasher<A>::Hasher(const Hasher& other) : ctx_(new_ctx()) {
  try {
    copy_ctx(ctx_, other.ctx_);
  } catch (...) {
    EVP_MD_CTX_free(ctx_);
    throw;
  }
}

template <HashAlg A>
Hasher<A>& Hasher<A>::operator=(const Hasher& other) {
  if (this != &other) restore(other);
  return *this;
}

template <HashAlg A>
Hasher<A>::Hasher(Hasher&& other) noexcept : ctx_(other.ctx_) {
  other.ctx_ = nullptr;
}

template <HashAlg A>
Hasher<A>& Hasher<A>::operator=(Hasher&& other) noexcept {
  std::swap(ctx_, other.ctx_);
  return *this;
}

template <HashAlg A>
Hasher<A>::~Hasher() {
  EVP_MD_CTX_free(ctx_);
}

template <HashAlg A>
void Hasher<A>::update(Bytes data) {
  if (EVP_DigestUpdate(ctx_, data.data(), data.size()) != 1) throw CryptoError("EVP_DigestUpdate");
}

template <HashAlg A>
void Hasher<A>::restore(const Hasher& other) {
  if (ctx_ == nullptr) ctx_ = new_ctx();
  copy_ctx(ctx_, other.ctx_);
}

template <HashAlg A>
std::array<std::uint8_t, Hasher<A>::kSize> Hasher<A>::peek() const {
  // Finalizing consumes a context, so finalize a scratch copy. The scratch
  // context is per thread to keep the per-cell path allocation-free.
  thread_local struct Scratch {
    EVP_MD_CTX* ctx = new_ctx();
    ~Scratch() { EVP_MD_CTX_free(ctx); }
  } scratch;
  copy_ctx(scratch.ctx, ctx_);
  std::array<std::uint8_t, kSize> out{};
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(scratch.ctx, out.data(), &len) != 1 || len != kSize)
    throw CryptoError("EVP_DigestFinal_ex");
  return out;
}

template class Hasher<HashAlg::Sha1>;
template class Hasher<HashAlg::Sha256>;
template class Hasher<HashAlg::Sha3_256>;

std::array<std::uint8_t, 20> sha1(Bytes data) { return one_shot<20>(detail::md_sha1(), data); }
std::array<std::uint8_t, 32> sha256(Bytes data) { return one_shot<32>(detail::md_sha256(), data); }
std::array<std::uint8_t, 32> sha3_256(Bytes data) { return one_shot<32>(detail::md_sha3_256(), data); }

std::vector<std::uint8_t> shake256(Bytes data, std::size_t out_len) {
  std::vector<std::uint8_t> out(out_len);
  EVP_MD_CTX* ctx = new_ctx();
  bool ok = EVP_DigestInit_ex2(ctx, detail::md_shake256(), nullptr) == 1 &&
            EVP_DigestUpdate(ctx, data.data(), data.size()) == 1 &&
            EVP_DigestFinalXOF(ctx, out.data(), out.size()) == 1;
  EVP_MD_CTX_free(ctx);
  if (!ok) throw CryptoError("SHAKE256");
  return out;
}

std::array<std::uint8_t, 32> hmac_sha256(Bytes key, Bytes msg) {
  std::unique_ptr<EVP_MAC_CTX, decltype(&EVP_MAC_CTX_free)> ctx(EVP_MAC_CTX_new(detail::mac_hmac()),
                                                                &EVP_MAC_CTX_free);
  if (!ctx) throw CryptoError("EVP_MAC_CTX_new");
  char digest_name[] = "SHA256";
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest_name, 0),
                         OSSL_PARAM_construct_end()};
  static const std::uint8_t empty = 0;
  const std::uint8_t* k = key.empty() ? &empty : key.data();
  std::array<std::uint8_t, 32> out{};
  std::size_t len = 0;
  if (EVP_MAC_init(ctx.get(), k, key.size(), params) != 1 ||
      EVP_MAC_update(ctx.get(), msg.data(), msg.size()) != 1 ||
      EVP_MAC_final(ctx.get(), out.data(), &len, out.size()) != 1 || len != out.size())
    throw CryptoError("HMAC-SHA256");
  return out;
}

namespace {

// RFC 5869 through OpenSSL's HKDF provider. mode is EVP_KDF_HKDF_MODE_*.
void run_hkdf(int mode, Bytes key, Bytes salt, Bytes info, std::span<std::uint8_t> out) {
  std::unique_ptr<EVP_KDF_CTX, decltype(&EVP_KDF_CTX_free)> ctx(EVP_KDF_CTX_new(detail::kdf_hkdf()),
                                                                &EVP_KDF_CTX_free);
  if (!ctx) throw CryptoError("EVP_KDF_CTX_new");
  static std::uint8_t empty = 0;
  auto octets = [](const char* name, Bytes b) {
    // OSSL_PARAM takes non-const pointers but only reads octet strings passed in.
    void* p = b.empty() ? static_cast<void*>(&empty) : const_cast<std::uint8_t*>(b.data());
    return OSSL_PARAM_construct_octet_string(name, p, b.size());
  };
  char digest_name[] = "SHA256";
  OSSL_PARAM params[6];
  std::size_t n = 0;
  params[n++] = OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode);
  params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest_name, 0);
  params[n++] = octets(OSSL_KDF_PARAM_KEY, key);
  if (mode != EVP_KDF_HKDF_MODE_EXPAND_ONLY) params[n++] = octets(OSSL_KDF_PARAM_SALT, salt);
  if (mode != EVP_KDF_HKDF_MODE_EXTRACT_ONLY) params[n++] = octets(OSSL_KDF_PARAM_INFO, info);
  params[n] = OSSL_PARAM_construct_end();
  if (EVP_KDF_derive(ctx.get(), out.data(), out.size(), params) != 1) throw CryptoError("HKDF-SHA256");
}

}  // namespace

std::array<std::uint8_t, 32> hkdf_sha256_extract(Bytes salt, Bytes ikm) {
  std::array<std::uint8_t, 32> prk{};
  run_hkdf(EVP_KDF_HKDF_MODE_EXTRACT_ONLY, ikm, salt, {}, prk);
  return prk;
}

std::vector<std::uint8_t> hkdf_sha256_expand(Bytes prk, Bytes info, std::size_t len) {
  if (len == 0 || len > 255 * 32) throw std::invalid_argument("HKDF-Expand: output length out of range");
  std::vector<std::uint8_t> out(len);
  run_hkdf(EVP_KDF_HKDF_MODE_EXPAND_ONLY, prk, {}, info, out);
  return out;
}

std::vector<std::uint8_t> hkdf_sha256(Bytes ikm, Bytes salt, Bytes info, std::size_t len) {
  if (len == 0 || len > 255 * 32) throw std::invalid_argument("HKDF: output length out of range");
  std::vector<std::uint8_t> out(len);
  run_hkdf(EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND, ikm, salt, info, out);
  return out;
}

}  // namespace conflux::crypto
