#pragma once
// Circuit-creation cell bodies (tor-spec 5.1), all fixed cells:
//
//   CREATE2:      HTYPE[2] | HLEN[2] | HDATA[HLEN]      (HLEN <= 505)
//   CREATED2:     HLEN[2] | HDATA[HLEN]                 (HLEN <= 507)
//   CREATE_FAST:  X[20]
//   CREATED_FAST: Y[20] | KH[20]
//
// The rest of the 509-byte payload is padding and ignored. HTYPE is kept as
// a number: whether a handshake type is acceptable is the handshake layer's
// decision. (Legacy TAP CREATE/CREATED bodies are not decoded: tor 0.4.9 no
// longer speaks TAP; their payload stays available through CellView.)
#include <array>
#include <cstdint>
#include <vector>

#include "conflux/cell/channel_cell.hpp"

namespace conflux::cell {

// CREATE2 handshake types.
namespace htype {
inline constexpr std::uint16_t kTap = 0x0000;
inline constexpr std::uint16_t kReserved = 0x0001;  // was CREATE_FAST-in-CREATE2
inline constexpr std::uint16_t kNtor = 0x0002;
inline constexpr std::uint16_t kNtorV3 = 0x0003;
}  // namespace htype

inline constexpr std::size_t kCreate2MaxHdataLen = kCellPayloadLen - 4;   // 505
inline constexpr std::size_t kCreated2MaxHdataLen = kCellPayloadLen - 2;  // 507
inline constexpr std::size_t kCreateFastKeyLen = 20;                      // HASH_LEN

struct Create2Cell {
  std::uint16_t htype = 0;
  std::vector<std::uint8_t> hdata;
  friend bool operator==(const Create2Cell&, const Create2Cell&) = default;
};

struct Created2Cell {
  std::vector<std::uint8_t> hdata;
  friend bool operator==(const Created2Cell&, const Created2Cell&) = default;
};

struct CreateFastCell {
  std::array<std::uint8_t, kCreateFastKeyLen> x{};
  friend bool operator==(const CreateFastCell&, const CreateFastCell&) = default;
};

struct CreatedFastCell {
  std::array<std::uint8_t, kCreateFastKeyLen> y{};
  std::array<std::uint8_t, kCreateFastKeyLen> kh{};  // derivative key data, proves knowledge
  friend bool operator==(const CreatedFastCell&, const CreatedFastCell&) = default;
};

// BadLength if HLEN exceeds what a 509-byte payload can hold (even when the
// span given is longer); Truncated if HDATA runs past the span.
[[nodiscard]] Decoded<Create2Cell> decode_create2_cell(bytes::ByteSpan payload);
[[nodiscard]] Decoded<Created2Cell> decode_created2_cell(bytes::ByteSpan payload);
// Truncated if the span is shorter than the fixed fields.
[[nodiscard]] Decoded<CreateFastCell> decode_create_fast_cell(bytes::ByteSpan payload);
[[nodiscard]] Decoded<CreatedFastCell> decode_created_fast_cell(bytes::ByteSpan payload);

// PayloadTooLong if HDATA exceeds kCreate2MaxHdataLen / kCreated2MaxHdataLen.
[[nodiscard]] CellEncoded<std::vector<std::uint8_t>> encode_create2_cell(const Create2Cell& cell);
[[nodiscard]] CellEncoded<std::vector<std::uint8_t>> encode_created2_cell(const Created2Cell& cell);
[[nodiscard]] std::vector<std::uint8_t> encode_create_fast_cell(const CreateFastCell& cell);
[[nodiscard]] std::vector<std::uint8_t> encode_created_fast_cell(const CreatedFastCell& cell);

}  // namespace conflux::cell
