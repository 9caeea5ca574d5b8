#include "conflux/crypto/ed25519.hpp"

#include <memory>

#include <openssl/err.h>

#include "conflux/crypto/error.hpp"
#include "conflux/crypto/random.hpp"
#include "pkey.hpp"

namespace conflux::crypto {
namespace {
struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const noexcept { EVP_MD_CTX_free(c); }
};
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;
}  // namespace

Ed25519Keypair Ed25519Keypair::generate() {
  Secret<32> seed;
  random_bytes(seed.mut());
  return from_seed(seed.view());
}

Ed25519Keypair Ed25519Keypair::from_seed(std::span<const std::uint8_t, 32> seed) {
  Ed25519Keypair k;
  k.seed_ = Secret<32>(seed);
  k.key_ = detail::private_key_from_raw(EVP_PKEY_ED25519, seed);
  k.public_ = detail::raw_public(k.key_.get());
  return k;
}

Ed25519Signature Ed25519Keypair::sign(std::span<const std::uint8_t> msg) const {
  MdCtxPtr ctx(EVP_MD_CTX_new());
  if (!ctx) throw CryptoError("EVP_MD_CTX_new");
  Ed25519Signature sig{};
  std::size_t len = sig.size();
  if (EVP_DigestSignInit_ex(ctx.get(), nullptr, nullptr, nullptr, nullptr, key_.get(), nullptr) != 1 ||
      EVP_DigestSign(ctx.get(), sig.data(), &len, msg.data(), msg.size()) != 1 || len != sig.size())
    throw CryptoError("Ed25519 sign");
  return sig;
}

bool ed25519_verify(const Ed25519Public& key, std::span<const std::uint8_t> msg,
                    const Ed25519Signature& sig) noexcept {
  auto pub = detail::public_key_from_raw(EVP_PKEY_ED25519, key);
  MdCtxPtr ctx(EVP_MD_CTX_new());
  bool ok = pub && ctx &&
            EVP_DigestVerifyInit_ex(ctx.get(), nullptr, nullptr, nullptr, nullptr, pub.get(), nullptr) == 1 &&
            EVP_DigestVerify(ctx.get(), sig.data(), sig.size(), msg.data(), msg.size()) == 1;
  ERR_clear_error();
  return ok;
}

}  // namespace conflux::crypto
