#include "conflux/crypto/ed25519_from_x25519_secret.hpp"

#include <sodium.h>

#include <algorithm>
#include <stdexcept>
#include <string_view>

namespace conflux::crypto {
namespace {

// tor hashes the string with its terminating NUL (sizeof a char array).
constexpr std::string_view kDeriveHigh{"Derive high part of ed25519 key from curve25519 key\0", 52};

void ensure_sodium() {
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialise");
}

// x mod L of a 64-byte little-endian number.
void reduce(std::array<std::uint8_t, 64>& wide, std::span<std::uint8_t, 32> out) {
  crypto_core_ed25519_scalar_reduce(out.data(), wide.data());
  sodium_memzero(wide.data(), wide.size());
}

}  // namespace

Ed25519FromX25519::Ed25519FromX25519(const X25519Secret& onion) {
  ensure_sodium();
  std::array<std::uint8_t, 64> wide{};
  const auto secret = onion.secret_bytes();
  std::copy(secret.begin(), secret.end(), wide.begin());
  // X25519 clamps its scalar on use (RFC 7748); tor stores it clamped.
  wide[0] &= 248;
  wide[31] &= 127;
  wide[31] |= 64;
  std::array<std::uint8_t, 64> h{};
  crypto_hash_sha512_state st;
  crypto_hash_sha512_init(&st);
  crypto_hash_sha512_update(&st, wide.data(), 32);
  crypto_hash_sha512_update(&st, reinterpret_cast<const unsigned char*>(kDeriveHigh.data()), kDeriveHigh.size());
  crypto_hash_sha512_final(&st, h.data());
  std::copy_n(h.begin(), 32, nonce_key_.mut().begin());
  sodium_memzero(h.data(), h.size());
  reduce(wide, scalar_.mut());
  if (crypto_scalarmult_ed25519_base_noclamp(public_.data(), scalar_.view().data()) != 0)
    throw std::runtime_error("Ed25519 form of the onion key: zero scalar");
}

Ed25519Signature Ed25519FromX25519::sign(std::span<const std::uint8_t> msg) const {
  // r = SHA-512(nonce key || M) mod L; R = rB
  std::array<std::uint8_t, 64> wide{};
  crypto_hash_sha512_state st;
  crypto_hash_sha512_init(&st);
  crypto_hash_sha512_update(&st, nonce_key_.view().data(), 32);
  crypto_hash_sha512_update(&st, msg.data(), msg.size());
  crypto_hash_sha512_final(&st, wide.data());
  std::array<std::uint8_t, 32> r{};
  reduce(wide, r);
  Ed25519Signature sig{};
  if (crypto_scalarmult_ed25519_base_noclamp(sig.data(), r.data()) != 0)
    throw std::runtime_error("Ed25519 signing: zero nonce");
  // k = SHA-512(R || A || M) mod L; S = r + k a mod L
  crypto_hash_sha512_init(&st);
  crypto_hash_sha512_update(&st, sig.data(), 32);
  crypto_hash_sha512_update(&st, public_.data(), public_.size());
  crypto_hash_sha512_update(&st, msg.data(), msg.size());
  crypto_hash_sha512_final(&st, wide.data());
  std::array<std::uint8_t, 32> k{};
  reduce(wide, k);
  std::array<std::uint8_t, 32> ka{};
  crypto_core_ed25519_scalar_mul(ka.data(), k.data(), scalar_.view().data());
  crypto_core_ed25519_scalar_add(sig.data() + 32, ka.data(), r.data());
  sodium_memzero(r.data(), r.size());
  sodium_memzero(ka.data(), ka.size());
  return sig;
}

}  // namespace conflux::crypto
