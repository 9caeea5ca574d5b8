#include "conflux/crypto/x25519_to_ed25519.hpp"

#include <openssl/bn.h>

#include <algorithm>
#include <memory>

namespace conflux::crypto {
namespace {

struct BnFree {
  void operator()(BIGNUM* b) const noexcept { BN_free(b); }
};
struct CtxFree {
  void operator()(BN_CTX* c) const noexcept { BN_CTX_free(c); }
};
using Bn = std::unique_ptr<BIGNUM, BnFree>;

}  // namespace

std::optional<Ed25519Public> ed25519_from_x25519(const X25519Public& u_bytes, int sign_bit) {
  if (sign_bit != 0 && sign_bit != 1) return std::nullopt;
  std::unique_ptr<BN_CTX, CtxFree> ctx(BN_CTX_new());
  Bn p(BN_new()), u(nullptr), one(BN_new()), num(BN_new()), den(BN_new()), y(BN_new());
  if (!ctx || !p || !one || !num || !den || !y) return std::nullopt;
  // p = 2^255 - 19
  if (BN_set_bit(p.get(), 255) != 1 || BN_sub_word(p.get(), 19) != 1 || BN_one(one.get()) != 1) return std::nullopt;
  // u is little-endian; its top bit is not part of the coordinate (RFC 7748).
  X25519Public masked = u_bytes;
  masked[31] &= 0x7f;
  u.reset(BN_lebin2bn(masked.data(), static_cast<int>(masked.size()), nullptr));
  if (!u) return std::nullopt;
  if (BN_mod_sub(num.get(), u.get(), one.get(), p.get(), ctx.get()) != 1 ||
      BN_mod_add(den.get(), u.get(), one.get(), p.get(), ctx.get()) != 1)
    return std::nullopt;
  if (BN_is_zero(den.get())) return std::nullopt;
  Bn inv(BN_mod_inverse(nullptr, den.get(), p.get(), ctx.get()));
  if (!inv || BN_mod_mul(y.get(), num.get(), inv.get(), p.get(), ctx.get()) != 1) return std::nullopt;
  Ed25519Public out{};
  if (BN_bn2lebinpad(y.get(), out.data(), static_cast<int>(out.size())) != static_cast<int>(out.size()))
    return std::nullopt;
  out[31] = static_cast<std::uint8_t>(out[31] | (sign_bit << 7));
  return out;
}

}  // namespace conflux::crypto
