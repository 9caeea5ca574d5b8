#include "conflux/cell/certs_cell.hpp"

#include <array>

namespace conflux::cell {

namespace {

// True if a spec-defined type occurs twice.
bool has_duplicate_known_type(const std::vector<CertsCellEntry>& certs) {
  std::array<bool, certs_type::kRsaEdCrossCert + 1> seen{};
  for (const auto& c : certs) {
    if (c.cert_type < certs_type::kRsaLink || c.cert_type > certs_type::kRsaEdCrossCert) continue;
    if (seen[c.cert_type]) return true;
    seen[c.cert_type] = true;
  }
  return false;
}

}  // namespace

Decoded<CertsCell> decode_certs_cell(bytes::ByteSpan payload) {
  bytes::Reader r(payload);
  const std::uint8_t n = r.u8();
  CertsCell out;
  out.certs.reserve(n);
  for (std::uint8_t i = 0; i < n && r.ok(); ++i) {
    CertsCellEntry e;
    e.cert_type = r.u8();
    const std::uint16_t clen = r.u16();
    bytes::ByteSpan body = r.take(clen);
    e.body.assign(body.begin(), body.end());
    out.certs.push_back(std::move(e));
  }
  if (!r.ok()) return fail(DecodeError::Truncated);
  if (has_duplicate_known_type(out.certs)) return fail(DecodeError::BadValue);
  return out;
}

CellEncoded<std::vector<std::uint8_t>> encode_certs_cell(const CertsCell& cell) {
  if (cell.certs.size() > 0xFF) return fail(CellEncodeError::TooManyItems);
  if (has_duplicate_known_type(cell.certs)) return fail(CellEncodeError::BadValue);
  std::size_t total = 1;
  for (const auto& c : cell.certs) {
    if (c.body.size() > 0xFFFF) return fail(CellEncodeError::PayloadTooLong);
    total += 3 + c.body.size();
  }
  if (total > kMaxVarPayloadLen) return fail(CellEncodeError::PayloadTooLong);
  bytes::Writer w(total);
  w.u8(static_cast<std::uint8_t>(cell.certs.size()));
  for (const auto& c : cell.certs) {
    w.u8(c.cert_type);
    w.u16(static_cast<std::uint16_t>(c.body.size()));
    w.put(c.body);
  }
  return std::move(w).take();
}

}  // namespace conflux::cell
