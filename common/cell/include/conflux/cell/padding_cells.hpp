#pragma once
// Link padding cell bodies.
//
//   PADDING (fixed) and VPADDING (variable): contents are padding and ignored
//   (tor-spec 3, 7.2); only a VPADDING cell's length is kept, so the sender
//   controls how much padding it emits.
//   PADDING_NEGOTIATE (fixed, link v5; padding-spec 2.2):
//     Version[1] = 0 | Command[1] (1 = STOP, 2 = START) | ito_low_ms[2] | ito_high_ms[2]
//   The rest of the payload is padding and ignored.
#include <cstdint>
#include <vector>

#include "conflux/cell/channel_cell.hpp"

namespace conflux::cell {

struct PaddingCell {
  friend bool operator==(const PaddingCell&, const PaddingCell&) = default;
};

struct VPaddingCell {
  std::uint16_t length = 0;
  friend bool operator==(const VPaddingCell&, const VPaddingCell&) = default;
};

enum class PaddingNegotiateCommand : std::uint8_t { Stop = 1, Start = 2 };

struct PaddingNegotiateCell {
  PaddingNegotiateCommand command = PaddingNegotiateCommand::Stop;
  std::uint16_t ito_low_ms = 0;   // low end of the inactivity timeout range
  std::uint16_t ito_high_ms = 0;  // high end
  friend bool operator==(const PaddingNegotiateCell&, const PaddingNegotiateCell&) = default;
};

// Never fails: any contents are padding.
[[nodiscard]] Decoded<PaddingCell> decode_padding_cell(bytes::ByteSpan payload);
// Empty body; the fixed-cell encoder pads it with NUL to 509 bytes.
[[nodiscard]] std::vector<std::uint8_t> encode_padding_cell(const PaddingCell& cell);

// BadLength above 65535 bytes (no variable payload is that long).
[[nodiscard]] Decoded<VPaddingCell> decode_vpadding_cell(bytes::ByteSpan payload);
// `length` NUL bytes (the spec says padding SHOULD be NUL).
[[nodiscard]] std::vector<std::uint8_t> encode_vpadding_cell(const VPaddingCell& cell);

// BadVersion for a version other than 0, BadValue for a command other than
// START/STOP (tor's parser refuses both; tor then drops the cell rather than
// closing the channel, which is the caller's choice). Truncated below 6 bytes.
[[nodiscard]] Decoded<PaddingNegotiateCell> decode_padding_negotiate_cell(bytes::ByteSpan payload);
[[nodiscard]] std::vector<std::uint8_t> encode_padding_negotiate_cell(const PaddingNegotiateCell& cell);

}  // namespace conflux::cell
