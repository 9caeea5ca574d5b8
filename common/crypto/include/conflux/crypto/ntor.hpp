#pragma once
// The ntor circuit handshake, "ntor-curve25519-sha256-1" (tor-spec 5.1.4),
// CREATE2 handshake type 0x0002.
//
//   client -> server  NODEID[20] | KEYID(B)[32] | X[32]      (84 bytes)
//   server -> client  Y[32] | AUTH[32]                       (64 bytes)
//
//   secret_input = EXP(X,y) | EXP(X,b) | ID | B | X | Y | PROTOID
//   KEY_SEED     = HMAC-SHA256(key = t_key, secret_input)
//   verify       = HMAC-SHA256(key = t_verify, secret_input)
//   AUTH         = HMAC-SHA256(key = t_mac, verify | ID | B | Y | X | PROTOID | "Server")
//   keys         = HKDF-Expand(KEY_SEED, m_expand, n)       (RFC 5869)
//
// NODEID is the relay's 20-byte RSA identity fingerprint in Tor; here it is
// 20 opaque bytes. The caller chooses how much key material it needs (tor1
// relay crypto: 72 bytes = Df 20 | Db 20 | Kf 16 | Kb 16, or 92 with KH).
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "conflux/crypto/ntor_common.hpp"
#include "conflux/crypto/x25519.hpp"

namespace conflux::crypto {

inline constexpr std::size_t kNtorNodeIdLen = 20;
inline constexpr std::size_t kNtorOnionskinLen = 84;
inline constexpr std::size_t kNtorReplyLen = 64;

using NtorNodeId = std::array<std::uint8_t, kNtorNodeIdLen>;
using NtorOnionskin = std::array<std::uint8_t, kNtorOnionskinLen>;
using NtorReply = std::array<std::uint8_t, kNtorReplyLen>;

// A relay's side of the handshake: its identity and its ntor onion keys. A
// relay keeps the previous onion key for a while after rotating, so clients
// with an older descriptor still succeed.
struct NtorServerKeys {
  NtorNodeId node_id;
  X25519Secret onion_key;
  std::optional<X25519Secret> previous_onion_key;
};

// What the client keeps between sending the onionskin and reading the reply.
// Holds the ephemeral secret x (wiped on destruction); never log it.
class NtorClientState {
 public:
  // Checks the server's reply (exactly 64 bytes) and derives key_len bytes.
  // Fails on a bad length, an all-zero DH result or a bad AUTH (compared in
  // constant time). The state is not consumed: a failed finish() may be
  // followed by another with the genuine reply.
  [[nodiscard]] HandshakeResult<KeyMaterial> finish(std::span<const std::uint8_t> reply,
                                                    std::size_t key_len) const;

  [[nodiscard]] const NtorNodeId& node_id() const noexcept { return node_id_; }
  [[nodiscard]] const X25519Public& onion_key() const noexcept { return onion_key_; }

 private:
  friend struct NtorClient;
  NtorClientState(const NtorNodeId& id, const X25519Public& b, X25519Secret x)
      : node_id_(id), onion_key_(b), x_(std::move(x)) {}
  NtorNodeId node_id_;
  X25519Public onion_key_;
  X25519Secret x_;
};

struct NtorClientStart {
  NtorClientState state;
  NtorOnionskin onionskin;
};

struct NtorClient {
  // Begins a handshake with the relay whose identity is node_id and whose
  // ntor onion key is onion_key (B), using a fresh ephemeral key.
  static NtorClientStart start(const NtorNodeId& node_id, const X25519Public& onion_key);
  // FOR TESTS (known-answer vectors): the same with a caller-chosen ephemeral
  // secret x. Reusing x across handshakes breaks forward secrecy.
  static NtorClientStart start_with_ephemeral(const NtorNodeId& node_id, const X25519Public& onion_key,
                                              X25519Secret x);
};

struct NtorServerResult {
  NtorReply reply;
  KeyMaterial keys;
};

// The relay's side: parses an attacker-chosen onionskin (must be exactly 84
// bytes), checks NODEID and KEYID, rejects degenerate DH, and returns the
// reply plus key_len bytes of key material.
[[nodiscard]] HandshakeResult<NtorServerResult> ntor_server_handshake(
    const NtorServerKeys& keys, std::span<const std::uint8_t> onionskin, std::size_t key_len);
// FOR TESTS (known-answer vectors): the same with a caller-chosen ephemeral y.
[[nodiscard]] HandshakeResult<NtorServerResult> ntor_server_handshake_with_ephemeral(
    const NtorServerKeys& keys, std::span<const std::uint8_t> onionskin, std::size_t key_len,
    const X25519Secret& y);

}  // namespace conflux::crypto
