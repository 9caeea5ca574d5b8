#pragma once
// The v0 ("tor1") relay header on the 509-byte RELAY/RELAY_EARLY payload
// (tor-spec 6.1):
//
//   command u8 | recognized u16 | stream ID u16 | digest [4] | length u16 |
//   body [length] | padding
//
// This layer only frames. The relay-crypto layer owns 'recognized' and the
// digest: the encoder writes both as zero (that is exactly the plaintext the
// running digest absorbs) and the decoder reports them without judging them.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "conflux/bytes/reader.hpp"
#include "conflux/bytes/result.hpp"
#include "conflux/bytes/strong_int.hpp"
#include "conflux/cell/error.hpp"
#include "conflux/cell/relay_command.hpp"
#include "conflux/crypto/random.hpp"

namespace conflux::cell {

inline constexpr std::size_t kRelayPayloadLen = 509;   // a fixed cell's payload
inline constexpr std::size_t kRelayHeaderLen = 11;
inline constexpr std::size_t kRelayBodyMaxLen = kRelayPayloadLen - kRelayHeaderLen;  // 498
// Padding starts with this many zero bytes, then random bytes (prop 289: the
// random tail makes a cell's running digest unpredictable for SENDME v1).
inline constexpr std::size_t kRelayPaddingZeroLen = 4;
inline constexpr std::size_t kRelayRecognizedOffset = 1;
inline constexpr std::size_t kRelayDigestOffset = 5;
inline constexpr std::size_t kRelayDigestLen = 4;

using RelayPayload = std::array<std::uint8_t, kRelayPayloadLen>;

// Fills a span with unpredictable bytes; tests inject a deterministic one.
using PaddingSource = void (*)(std::span<std::uint8_t>);

// A decoded header; 'body' borrows from the payload it was decoded from.
struct RelayCellView {
  RelayCommand command{};  // may hold a value outside the enum (unknown command)
  std::uint16_t recognized = 0;
  StreamId stream{};
  std::array<std::uint8_t, kRelayDigestLen> digest{};
  bytes::ByteSpan body;
};

// Frames 'body' into a plaintext relay payload with recognized = 0 and
// digest = 0. Padding: 4 zero bytes after the body (fewer if fewer remain),
// then bytes from 'pad' up to 509. Fails with BadLength if body > 498 bytes.
Result<RelayPayload, DecodeError> encode_relay_payload(
    RelayCommand command, StreamId stream, bytes::ByteSpan body,
    PaddingSource pad = &crypto::random_bytes);

// Same, writing into a caller-owned payload (e.g. inside a cell buffer).
// Returns false (out untouched) if body > 498 bytes.
[[nodiscard]] bool encode_relay_payload_into(std::span<std::uint8_t, kRelayPayloadLen> out,
                                             RelayCommand command, StreamId stream,
                                             bytes::ByteSpan body,
                                             PaddingSource pad = &crypto::random_bytes);

// Splits a 509-byte payload into header and body. BadLength if the payload is
// not 509 bytes or Length > 498. Unknown commands and nonzero recognized are
// not errors here: the crypto layer and decode_relay_msg() judge those.
Decoded<RelayCellView> decode_relay_payload(bytes::ByteSpan payload) noexcept;

}  // namespace conflux::cell
