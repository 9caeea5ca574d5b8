#include "conflux/cell/create_cells.hpp"

namespace conflux::cell {

Decoded<Create2Cell> decode_create2_cell(bytes::ByteSpan payload) {
  bytes::Reader r(payload);
  Create2Cell out;
  out.htype = r.u16();
  const std::uint16_t hlen = r.u16();
  if (!r.ok()) return fail(DecodeError::Truncated);
  if (hlen > kCreate2MaxHdataLen) return fail(DecodeError::BadLength);
  bytes::ByteSpan data = r.take(hlen);
  if (!r.ok()) return fail(DecodeError::Truncated);
  out.hdata.assign(data.begin(), data.end());
  return out;
}

Decoded<Created2Cell> decode_created2_cell(bytes::ByteSpan payload) {
  bytes::Reader r(payload);
  Created2Cell out;
  const std::uint16_t hlen = r.u16();
  if (!r.ok()) return fail(DecodeError::Truncated);
  if (hlen > kCreated2MaxHdataLen) return fail(DecodeError::BadLength);
  bytes::ByteSpan data = r.take(hlen);
  if (!r.ok()) return fail(DecodeError::Truncated);
  out.hdata.assign(data.begin(), data.end());
  return out;
}

Decoded<CreateFastCell> decode_create_fast_cell(bytes::ByteSpan payload) {
  bytes::Reader r(payload);
  CreateFastCell out;
  r.copy_to(out.x);
  if (!r.ok()) return fail(DecodeError::Truncated);
  return out;
}

Decoded<CreatedFastCell> decode_created_fast_cell(bytes::ByteSpan payload) {
  bytes::Reader r(payload);
  CreatedFastCell out;
  r.copy_to(out.y);
  r.copy_to(out.kh);
  if (!r.ok()) return fail(DecodeError::Truncated);
  return out;
}

CellEncoded<std::vector<std::uint8_t>> encode_create2_cell(const Create2Cell& cell) {
  if (cell.hdata.size() > kCreate2MaxHdataLen) return fail(CellEncodeError::PayloadTooLong);
  bytes::Writer w(4 + cell.hdata.size());
  w.u16(cell.htype);
  w.u16(static_cast<std::uint16_t>(cell.hdata.size()));
  w.put(cell.hdata);
  return std::move(w).take();
}

CellEncoded<std::vector<std::uint8_t>> encode_created2_cell(const Created2Cell& cell) {
  if (cell.hdata.size() > kCreated2MaxHdataLen) return fail(CellEncodeError::PayloadTooLong);
  bytes::Writer w(2 + cell.hdata.size());
  w.u16(static_cast<std::uint16_t>(cell.hdata.size()));
  w.put(cell.hdata);
  return std::move(w).take();
}

std::vector<std::uint8_t> encode_create_fast_cell(const CreateFastCell& cell) {
  return {cell.x.begin(), cell.x.end()};
}

std::vector<std::uint8_t> encode_created_fast_cell(const CreatedFastCell& cell) {
  bytes::Writer w(2 * kCreateFastKeyLen);
  w.put(cell.y);
  w.put(cell.kh);
  return std::move(w).take();
}

}  // namespace conflux::cell
