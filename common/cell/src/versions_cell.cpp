#include "conflux/cell/versions_cell.hpp"

namespace conflux::cell {

Decoded<VersionsCell> decode_versions_cell(bytes::ByteSpan payload) {
  if (payload.size() % 2 != 0) return fail(DecodeError::BadLength);
  bytes::Reader r(payload);
  VersionsCell out;
  out.versions.reserve(payload.size() / 2);
  while (!r.empty()) out.versions.push_back(r.u16());
  if (!r.finished()) return fail(DecodeError::Truncated);
  return out;
}

CellEncoded<std::vector<std::uint8_t>> encode_versions_cell(const VersionsCell& cell) {
  if (cell.versions.size() > kMaxVarPayloadLen / 2) return fail(CellEncodeError::TooManyItems);
  bytes::Writer w(cell.versions.size() * 2);
  for (std::uint16_t v : cell.versions) w.u16(v);
  return std::move(w).take();
}

}  // namespace conflux::cell
