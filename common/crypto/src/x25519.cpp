#include "conflux/crypto/x25519.hpp"

#include "conflux/crypto/ct.hpp"
#include "conflux/crypto/error.hpp"
#include "conflux/crypto/random.hpp"
#include "pkey.hpp"

#include <openssl/err.h>

namespace conflux::crypto {

X25519Secret X25519Secret::generate() {
  Secret<32> raw;
  random_bytes(raw.mut());
  return from_bytes(raw.view());
}

X25519Secret X25519Secret::from_bytes(std::span<const std::uint8_t, 32> secret) {
  X25519Secret s;
  s.secret_ = Secret<32>(secret);
  s.key_ = detail::private_key_from_raw(EVP_PKEY_X25519, secret);
  s.public_ = detail::raw_public(s.key_.get());
  return s;
}

std::optional<X25519Shared> X25519Secret::dh(const X25519Public& peer) const {
  auto theirs = detail::public_key_from_raw(EVP_PKEY_X25519, peer);
  if (!theirs) return std::nullopt;
  detail::PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, key_.get(), nullptr));
  if (!ctx) throw CryptoError("EVP_PKEY_CTX_new_from_pkey");
  X25519Shared shared;
  std::size_t len = shared.size();
  if (EVP_PKEY_derive_init(ctx.get()) != 1) throw CryptoError("EVP_PKEY_derive_init");
  if (EVP_PKEY_derive_set_peer_ex(ctx.get(), theirs.get(), 0) != 1) return std::nullopt;
  // OpenSSL refuses an all-zero result itself; the explicit check below keeps
  // the guarantee even if a provider does not.
  if (EVP_PKEY_derive(ctx.get(), shared.mut().data(), &len) != 1 || len != shared.size()) {
    ERR_clear_error();
    return std::nullopt;
  }
  if (ct_is_zero(shared.view())) return std::nullopt;
  return shared;
}

}  // namespace conflux::crypto
