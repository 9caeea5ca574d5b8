#pragma once
// Vocabulary shared by the tor1 relay cell crypto (tor-spec 6.1, 5.5): the
// 509-byte relay payload, the header fields the crypto touches, the 20-byte
// SENDME v1 tag and the typed errors.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace conflux::crypto {

// A relay cell body is always exactly PAYLOAD_LEN bytes. Taking a fixed-extent
// span makes "wrong payload size" a compile error instead of a runtime case.
inline constexpr std::size_t kRelayPayloadLen = 509;
using RelayPayload = std::span<std::uint8_t, kRelayPayloadLen>;
using ConstRelayPayload = std::span<const std::uint8_t, kRelayPayloadLen>;

// Relay header v0 (tor-spec 6.1): Command[1] | Recognized[2] | StreamID[2] |
// Digest[4] | Length[2] | Data. Only these two fields belong to the crypto.
inline constexpr std::size_t kRelayRecognizedOffset = 1;
inline constexpr std::size_t kRelayRecognizedLen = 2;
inline constexpr std::size_t kRelayDigestOffset = 5;
inline constexpr std::size_t kRelayDigestLen = 4;

// The full running SHA-1 digest after a cell: what an authenticated SENDME
// (v1) carries for tor1 circuits.
using SendmeDigest = std::array<std::uint8_t, 20>;

enum class RelayCryptoError : std::uint8_t {
  BadKeyMaterialLength,  // key material is neither 72 nor 92 bytes
  TooManyHops,           // a client circuit already holds kMaxHops hops
  NoSuchHop,             // hop number 0 or beyond the hops added so far
  NotRecognized,         // an inbound cell no hop recognized: close the circuit
};

[[nodiscard]] const char* to_string(RelayCryptoError e) noexcept;

}  // namespace conflux::crypto
