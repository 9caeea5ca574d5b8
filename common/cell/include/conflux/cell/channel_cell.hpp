#pragma once
// Channel cell framing (tor-spec section 3), sans-I/O.
//
//   fixed:    CircID[2 or 4] | Command[1] | Payload[509]          (512 or 514 bytes)
//   variable: CircID[2 or 4] | Command[1] | Length[2] | Payload[Length]
//
// CircID is 4 bytes on link v4+, 2 bytes on older links and before the
// VERSIONS exchange (so the first VERSIONS cell always has a 2-byte ID).
//
// frame_cell() looks at the bytes buffered so far and either asks for more,
// hands back one complete cell as a view into the caller's buffer, or reports
// a typed error. Encoders append the canonical form (fixed payloads padded
// with NUL to 509 bytes, as the spec asks senders to do).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <variant>
#include <vector>

#include "conflux/bytes/reader.hpp"
#include "conflux/bytes/result.hpp"
#include "conflux/bytes/strong_int.hpp"
#include "conflux/bytes/writer.hpp"
#include "conflux/cell/cell_command.hpp"
#include "conflux/cell/error.hpp"

namespace conflux::cell {

// PAYLOAD_LEN: the payload of every fixed-length cell.
inline constexpr std::size_t kCellPayloadLen = 509;
// Largest payload a variable-length cell's u16 Length can describe. tor
// accepts all of them; so does our default (see FramerLimits).
inline constexpr std::size_t kMaxVarPayloadLen = 65535;

constexpr std::size_t circ_id_len(LinkVersion link) noexcept { return link >= 4 ? 4 : 2; }
constexpr std::size_t fixed_cell_len(LinkVersion link) noexcept {
  return circ_id_len(link) + 1 + kCellPayloadLen;
}
constexpr std::size_t var_cell_header_len(LinkVersion link) noexcept {
  return circ_id_len(link) + 1 + 2;
}

// One framed cell. `payload` borrows from the buffer given to frame_cell():
// it is exactly 509 bytes for a fixed cell (padding included) and Length
// bytes for a variable one. Decode or copy it before the buffer changes.
struct CellView {
  CircId circ_id;
  CellCommand command;
  bytes::ByteSpan payload;
};

// Not enough bytes yet: call again once at least `total_needed` bytes (counted
// from the start of the buffer) are available.
struct NeedMore {
  std::size_t total_needed;
};

struct Framed {
  CellView cell;
  std::size_t consumed;  // bytes of this cell, header included
};

// `skip` > 0 means the bad cell is complete and self-delimiting, so a caller
// may drop `skip` bytes and carry on (tor-spec: "an OR must drop the cell" on
// an unknown command; tor does so). `skip` == 0 means the stream cannot be
// resynchronised and the connection should be closed.
struct FrameError {
  DecodeError error;
  std::size_t skip;
};

using FrameResult = std::variant<NeedMore, Framed, FrameError>;

// Limit on variable-length payloads. The default accepts every length tor
// accepts (65535): the cost is one 64 KiB buffer per connection, which is
// bounded, and refusing less would let a tor peer's legal VPADDING break the
// link. A caller may lower it (e.g. for unauthenticated peers); longer cells
// are then reported as BadLength with skip == 0, before buffering them.
struct FramerLimits {
  std::size_t max_var_payload = kMaxVarPayloadLen;
};

// Frames the first cell of `buffered` under the given link version.
// Errors:
//  - UnknownCommand (skip = cell length): a command tor-spec does not define,
//    or a known command that cannot be used on this link version (e.g. CERTS
//    on a v2 link, where it would be framed as a fixed cell). Reported once
//    the whole cell is buffered.
//  - BadLength (skip = 0): a variable cell longer than limits.max_var_payload.
[[nodiscard]] FrameResult frame_cell(bytes::ByteSpan buffered, LinkVersion link,
                                     FramerLimits limits = {}) noexcept;

enum class CellEncodeError : std::uint8_t {
  CircIdTooWide,   // ID does not fit the 2-byte field of this link version
  PayloadTooLong,  // more than 509 bytes (fixed) or 65535 (variable), or a body limit
  WrongCellKind,   // fixed encoder given a variable command or vice versa
  TooManyItems,    // a count field (u8/u16) cannot hold the list
  BadValue,        // a field value the spec forbids (e.g. duplicate cert types)
};

std::string_view to_string(CellEncodeError e) noexcept;

template <class T>
using CellEncoded = Result<T, CellEncodeError>;

inline Unexpected<CellEncodeError> fail(CellEncodeError e) { return Unexpected<CellEncodeError>{e}; }

// Appends one fixed cell: the payload is padded with NUL bytes to 509.
// Returns the number of bytes appended; on error nothing is appended.
CellEncoded<std::size_t> append_fixed_cell(bytes::Writer& out, LinkVersion link, CircId circ_id,
                                           CellCommand cmd, bytes::ByteSpan payload);
// One fixed cell written into `out` (at least fixed_cell_len(link) bytes),
// the payload padded with NUL bytes. Returns the bytes written; on error
// `out` is left as it was. Relays write each forwarded cell this way, in
// place, without a buffer of its own.
CellEncoded<std::size_t> write_fixed_cell(bytes::MutByteSpan out, LinkVersion link, CircId circ_id, CellCommand cmd,
                                          bytes::ByteSpan payload);
// Appends one variable-length cell carrying exactly `payload`.
CellEncoded<std::size_t> append_var_cell(bytes::Writer& out, LinkVersion link, CircId circ_id,
                                         CellCommand cmd, bytes::ByteSpan payload);
// Either of the above, as the command requires on this link version.
CellEncoded<std::size_t> append_cell(bytes::Writer& out, LinkVersion link, CircId circ_id,
                                     CellCommand cmd, bytes::ByteSpan payload);
CellEncoded<std::vector<std::uint8_t>> encode_cell(LinkVersion link, CircId circ_id, CellCommand cmd,
                                                   bytes::ByteSpan payload);

}  // namespace conflux::cell
