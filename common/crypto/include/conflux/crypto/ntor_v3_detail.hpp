#pragma once
// The building blocks of ntor-v3 (prop 332, appendix A.1), exposed so the
// known-answer test can check every intermediate value the proposal lists
// (ENC_K1, MAC_K1, msg_mac, key_seed, verify, ENC_KEY, AUTH). Protocol code
// uses ntor_v3.hpp, not this header.
//
//   ENCAP(s)      = u64_be(len(s)) | s
//   H(s, t)       = SHA3-256(ENCAP(t) | s)
//   MAC(k, m, t)  = SHA3-256(ENCAP(t) | ENCAP(k) | m)
//   KDF(s, t)     = SHAKE-256(ENCAP(t) | s)
//   ENC(k, m)     = AES-256-CTR(k, m), zero IV
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "conflux/crypto/ntor_common.hpp"
#include "conflux/crypto/secret.hpp"
#include "conflux/crypto/x25519.hpp"

namespace conflux::crypto::ntor_v3_detail {

using Bytes = std::span<const std::uint8_t>;
using Digest = std::array<std::uint8_t, 32>;

inline constexpr std::string_view kProtoId = "ntor3-curve25519-sha3_256-1";
inline constexpr std::string_view kTMsgKdf = "ntor3-curve25519-sha3_256-1:kdf_phase1";
inline constexpr std::string_view kTMsgMac = "ntor3-curve25519-sha3_256-1:msg_mac";
inline constexpr std::string_view kTKeySeed = "ntor3-curve25519-sha3_256-1:key_seed";
inline constexpr std::string_view kTVerify = "ntor3-curve25519-sha3_256-1:verify";
inline constexpr std::string_view kTFinal = "ntor3-curve25519-sha3_256-1:kdf_final";
inline constexpr std::string_view kTAuth = "ntor3-curve25519-sha3_256-1:auth_final";

// Keys protecting the client message: (ENC_K1, MAC_K1) = KDF_msgkdf(
// Bx | ID | X | B | PROTOID | ENCAP(VER)), 32 bytes each. Bx is EXP(B,x) on
// the client and EXP(X,b) on the relay.
struct Phase1Keys {
  Secret<32> enc;
  Secret<32> mac;
};
Phase1Keys phase1_keys(const X25519Shared& bx, Bytes id, const X25519Public& x, const X25519Public& b,
                       Bytes verification);

// msg_mac = MAC_msgmac(MAC_K1, ID | B | X | encrypted_msg).
Digest msg_mac(std::span<const std::uint8_t, 32> mac_k1, Bytes id, const X25519Public& b,
               const X25519Public& x, Bytes encrypted_msg);

// key_seed = H_key_seed(secret_input), verify = H_verify(secret_input) with
// secret_input = Xy | Xb | ID | B | X | Y | PROTOID | ENCAP(VER).
struct FinalSeeds {
  Secret<32> key_seed;
  Secret<32> verify;
};
FinalSeeds final_seeds(const X25519Shared& xy, const X25519Shared& xb, Bytes id, const X25519Public& b,
                       const X25519Public& x, const X25519Public& y, Bytes verification);

// AUTH = H_auth(verify | ID | B | Y | X | msg_mac | ENCAP(encrypted_sm) | PROTOID | "Server").
Digest auth(std::span<const std::uint8_t, 32> verify, Bytes id, const X25519Public& b,
            const X25519Public& y, const X25519Public& x, std::span<const std::uint8_t, 32> msg_mac,
            Bytes encrypted_sm);

// KDF_final(key_seed), 32 + n bytes: ENC_KEY (for SM) then the n-byte relay
// key stream.
KeyMaterial kdf_final(std::span<const std::uint8_t, 32> key_seed, std::size_t n);

}  // namespace conflux::crypto::ntor_v3_detail
