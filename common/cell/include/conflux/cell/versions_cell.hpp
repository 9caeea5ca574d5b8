#pragma once
// VERSIONS cell body (tor-spec 4.1): a list of big-endian u16 link versions.
// The payload MUST NOT contain padding, so an odd length is malformed and the
// connection must be closed.
#include <cstdint>
#include <vector>

#include "conflux/cell/channel_cell.hpp"

namespace conflux::cell {

struct VersionsCell {
  std::vector<std::uint16_t> versions;
  friend bool operator==(const VersionsCell&, const VersionsCell&) = default;
};

// Rejects an odd payload length (BadLength). An empty list decodes; having no
// common version is the handshake's decision, not a framing error.
[[nodiscard]] Decoded<VersionsCell> decode_versions_cell(bytes::ByteSpan payload);
// TooManyItems if the list needs more than 65535 bytes.
[[nodiscard]] CellEncoded<std::vector<std::uint8_t>> encode_versions_cell(const VersionsCell& cell);

}  // namespace conflux::cell
