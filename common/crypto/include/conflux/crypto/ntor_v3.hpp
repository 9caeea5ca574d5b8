#pragma once
// The ntor-v3 circuit handshake (prop 332, "ntor3-curve25519-sha3_256-1"),
// CREATE2 handshake type 0x0003. Unlike ntor v1 it carries an encrypted,
// authenticated client message (CM) and server message (SM); Tor puts the
// extension list of ntor_v3_extensions.hpp there (congestion control).
//
//   client -> relay  NODEID[32] | KEYID(B)[32] | X[32] | ENC(CM)[len CM] | MAC[32]
//   relay -> client  Y[32] | AUTH[32] | ENC(SM)[len SM]
//
// NODEID is the relay's Ed25519 identity. Both sides must use the same
// verification string; circuits use "circuit extend".
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "conflux/crypto/ntor_common.hpp"
#include "conflux/crypto/secret.hpp"
#include "conflux/crypto/x25519.hpp"

namespace conflux::crypto {

inline constexpr std::size_t kNtorV3NodeIdLen = 32;
// Onionskin = kNtorV3OnionskinOverhead + len(CM); reply = kNtorV3ReplyOverhead + len(SM).
inline constexpr std::size_t kNtorV3OnionskinOverhead = 128;
inline constexpr std::size_t kNtorV3ReplyOverhead = 64;

using NtorV3NodeId = std::array<std::uint8_t, kNtorV3NodeIdLen>;

// The verification string for circuit extension (prop 332 / tor-spec).
inline constexpr std::array<std::uint8_t, 14> kNtorV3CircuitVerification = {
    'c', 'i', 'r', 'c', 'u', 'i', 't', ' ', 'e', 'x', 't', 'e', 'n', 'd'};

struct NtorV3ServerKeys {
  NtorV3NodeId node_id;
  X25519Secret onion_key;
  std::optional<X25519Secret> previous_onion_key;  // kept for a while after rotation
};

// ---- client -------------------------------------------------------------

struct NtorV3ClientResult {
  std::vector<std::uint8_t> server_message;  // SM, decrypted and authenticated
  KeyMaterial keys;                          // the first key_len bytes of the key stream
};

// What the client keeps while waiting for the reply: x, EXP(B,x) and the MAC
// of its own message (secrets, wiped on destruction; never log them).
class NtorV3ClientState {
 public:
  // Checks a reply (Y | AUTH | MSG, at least 64 bytes): AUTH in constant
  // time, Yx not all-zero. Returns SM and key_len bytes of key stream. The
  // state is not consumed, so a forged reply does not kill the handshake.
  [[nodiscard]] HandshakeResult<NtorV3ClientResult> finish(std::span<const std::uint8_t> reply,
                                                           std::size_t key_len) const;

 private:
  friend struct NtorV3Client;
  NtorV3ClientState(const NtorV3NodeId& id, const X25519Public& b, X25519Secret x, const X25519Shared& bx,
                    const std::array<std::uint8_t, 32>& mac, std::span<const std::uint8_t> ver)
      : node_id_(id), onion_key_(b), x_(std::move(x)), bx_(bx), msg_mac_(mac), verification_(ver.begin(), ver.end()) {}
  NtorV3NodeId node_id_;
  X25519Public onion_key_;
  X25519Secret x_;
  X25519Shared bx_;
  std::array<std::uint8_t, 32> msg_mac_;
  std::vector<std::uint8_t> verification_;
};

struct NtorV3ClientStart {
  NtorV3ClientState state;
  std::vector<std::uint8_t> onionskin;
};

struct NtorV3Client {
  // Fails only with DegenerateDh, when B is a small-order point.
  static HandshakeResult<NtorV3ClientStart> start(const NtorV3NodeId& node_id, const X25519Public& onion_key,
                                                  std::span<const std::uint8_t> client_message,
                                                  std::span<const std::uint8_t> verification);
  // FOR TESTS (known-answer vectors): a caller-chosen ephemeral x. Reusing x
  // across handshakes breaks forward secrecy.
  static HandshakeResult<NtorV3ClientStart> start_with_ephemeral(
      const NtorV3NodeId& node_id, const X25519Public& onion_key, std::span<const std::uint8_t> client_message,
      std::span<const std::uint8_t> verification, X25519Secret x);
};

// ---- relay --------------------------------------------------------------

struct NtorV3ServerResult {
  std::vector<std::uint8_t> reply;  // Y | AUTH | ENC(SM)
  KeyMaterial keys;
};

// Step 1 done: the onionskin was for us and its MAC verified, so the client
// message can be read. The relay inspects it, picks SM, then calls reply().
class NtorV3ServerPending {
 public:
  [[nodiscard]] std::span<const std::uint8_t> client_message() const noexcept { return client_message_; }

  // Step 2: encrypts SM, derives key_len bytes of key stream, builds the reply.
  [[nodiscard]] HandshakeResult<NtorV3ServerResult> reply(std::span<const std::uint8_t> server_message,
                                                          std::size_t key_len) const;
  // FOR TESTS (known-answer vectors): a caller-chosen ephemeral y.
  [[nodiscard]] HandshakeResult<NtorV3ServerResult> reply_with_ephemeral(
      std::span<const std::uint8_t> server_message, std::size_t key_len, const X25519Secret& y) const;

 private:
  friend HandshakeResult<NtorV3ServerPending> ntor_v3_server_receive(const NtorV3ServerKeys&,
                                                                     std::span<const std::uint8_t>,
                                                                     std::span<const std::uint8_t>);
  NtorV3ServerPending(const NtorV3NodeId& id, const X25519Public& b, const X25519Public& x,
                      const X25519Shared& xb, std::span<const std::uint8_t> mac,
                      std::span<const std::uint8_t> ver)
      : node_id_(id), onion_key_(b), client_key_(x), xb_(xb), verification_(ver.begin(), ver.end()) {
    for (std::size_t i = 0; i < 32; ++i) msg_mac_[i] = mac[i];
  }
  NtorV3NodeId node_id_;
  X25519Public onion_key_;
  X25519Public client_key_;
  X25519Shared xb_;
  std::array<std::uint8_t, 32> msg_mac_{};
  std::vector<std::uint8_t> verification_;
  std::vector<std::uint8_t> client_message_;
};

// Step 1 on an attacker-chosen onionskin: checks the length (>= 128), NODEID,
// KEYID (current or previous onion key), rejects an all-zero EXP(X,b), checks
// the MAC in constant time, then decrypts CM.
[[nodiscard]] HandshakeResult<NtorV3ServerPending> ntor_v3_server_receive(
    const NtorV3ServerKeys& keys, std::span<const std::uint8_t> onionskin,
    std::span<const std::uint8_t> verification);

// Both steps at once. `policy` sees CM and returns SM, or nullopt to refuse
// (HandshakeError::Rejected).
using NtorV3ServerPolicy =
    std::function<std::optional<std::vector<std::uint8_t>>(std::span<const std::uint8_t> client_message)>;
[[nodiscard]] HandshakeResult<NtorV3ServerResult> ntor_v3_server_handshake(
    const NtorV3ServerKeys& keys, std::span<const std::uint8_t> onionskin,
    std::span<const std::uint8_t> verification, const NtorV3ServerPolicy& policy, std::size_t key_len);

}  // namespace conflux::crypto
