#include "conflux/cell/relay_header.hpp"

#include <algorithm>

#include "conflux/bytes/writer.hpp"

namespace conflux::cell {

bool encode_relay_payload_into(std::span<std::uint8_t, kRelayPayloadLen> out,
                               RelayCommand command, StreamId stream, bytes::ByteSpan body,
                               PaddingSource pad) {
  if (body.size() > kRelayBodyMaxLen) return false;
  bytes::SpanWriter w(out);
  w.u8(static_cast<std::uint8_t>(command));
  w.u16(0);  // recognized: always zero in plaintext
  w.u16(stream.value());
  w.zeros(kRelayDigestLen);  // filled by the relay-crypto layer
  w.u16(static_cast<std::uint16_t>(body.size()));
  // The body and the zeros in bulk (memcpy, memset): SpanWriter's byte loops
  // were a tenth of an exit's CPU, one full DATA body per cell.
  const std::size_t body_at = w.position();
  std::copy(body.begin(), body.end(), out.begin() + static_cast<std::ptrdiff_t>(body_at));
  // tor-spec 6.1: four zero bytes, then random bytes to the end; if fewer
  // than four bytes remain they are all zero.
  const std::size_t zeros_at = body_at + body.size();
  const std::size_t random_at = std::min(zeros_at + kRelayPaddingZeroLen, kRelayPayloadLen);
  std::fill(out.begin() + static_cast<std::ptrdiff_t>(zeros_at), out.begin() + static_cast<std::ptrdiff_t>(random_at),
            std::uint8_t{0});
  if (random_at < kRelayPayloadLen) pad(out.subspan(random_at));
  return true;
}

Result<RelayPayload, DecodeError> encode_relay_payload(RelayCommand command, StreamId stream,
                                                       bytes::ByteSpan body, PaddingSource pad) {
  RelayPayload p{};
  if (!encode_relay_payload_into(p, command, stream, body, pad)) return fail(DecodeError::BadLength);
  return p;
}

Decoded<RelayCellView> decode_relay_payload(bytes::ByteSpan payload) noexcept {
  if (payload.size() != kRelayPayloadLen) return fail(DecodeError::BadLength);
  bytes::Reader r(payload);
  RelayCellView v;
  v.command = static_cast<RelayCommand>(r.u8());
  v.recognized = r.u16();
  v.stream = StreamId(r.u16());
  r.copy_to(v.digest);
  const std::uint16_t len = r.u16();
  if (len > kRelayBodyMaxLen) return fail(DecodeError::BadLength);
  v.body = r.take(len);
  if (!r.ok()) return fail(DecodeError::Truncated);  // unreachable: 11 + 498 = 509
  return v;
}

}  // namespace conflux::cell
