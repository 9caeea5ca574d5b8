#include "conflux/cell/netinfo_cell.hpp"

namespace conflux::cell {

namespace {

// One ATYPE|ALEN|AVAL. Returns nullopt for a skipped (unknown) type; sets
// `err` when the address is malformed.
std::optional<NetinfoAddress> read_address(bytes::Reader& r, std::optional<DecodeError>& err) {
  const std::uint8_t type = r.u8();
  const std::uint8_t len = r.u8();
  bytes::ByteSpan value = r.take(len);
  if (!r.ok()) {
    err = DecodeError::Truncated;
    return std::nullopt;
  }
  if (type == kNetinfoAddrIpv4) {
    if (len != 4) {
      err = DecodeError::BadLength;
      return std::nullopt;
    }
    NetinfoIpv4 a;
    for (std::size_t i = 0; i < a.octets.size(); ++i) a.octets[i] = value[i];
    return NetinfoAddress{a};
  }
  if (type == kNetinfoAddrIpv6) {
    if (len != 16) {
      err = DecodeError::BadLength;
      return std::nullopt;
    }
    NetinfoIpv6 a;
    for (std::size_t i = 0; i < a.octets.size(); ++i) a.octets[i] = value[i];
    return NetinfoAddress{a};
  }
  return std::nullopt;
}

void write_address(bytes::Writer& w, const NetinfoAddress& a) {
  if (const auto* v4 = std::get_if<NetinfoIpv4>(&a)) {
    w.u8(kNetinfoAddrIpv4);
    w.u8(4);
    w.put(v4->octets);
  } else {
    const auto& v6 = std::get<NetinfoIpv6>(a);
    w.u8(kNetinfoAddrIpv6);
    w.u8(16);
    w.put(v6.octets);
  }
}

}  // namespace

Decoded<NetinfoCell> decode_netinfo_cell(bytes::ByteSpan payload) {
  bytes::Reader r(payload);
  NetinfoCell out;
  std::optional<DecodeError> err;
  out.timestamp = r.u32();
  out.other_address = read_address(r, err);
  if (err) return fail(*err);
  const std::uint8_t n = r.u8();
  if (!r.ok()) return fail(DecodeError::Truncated);
  for (std::uint8_t i = 0; i < n; ++i) {
    auto a = read_address(r, err);
    if (err) return fail(*err);
    if (a) out.my_addresses.push_back(*a);
  }
  return out;
}

CellEncoded<std::vector<std::uint8_t>> encode_netinfo_cell(const NetinfoCell& cell) {
  if (cell.my_addresses.size() > 0xFF) return fail(CellEncodeError::TooManyItems);
  bytes::Writer w(kCellPayloadLen);
  w.u32(cell.timestamp);
  if (cell.other_address) {
    write_address(w, *cell.other_address);
  } else {
    w.u8(0);  // unknown type, empty value
    w.u8(0);
  }
  w.u8(static_cast<std::uint8_t>(cell.my_addresses.size()));
  for (const auto& a : cell.my_addresses) write_address(w, a);
  if (w.size() > kCellPayloadLen) return fail(CellEncodeError::PayloadTooLong);
  return std::move(w).take();
}

}  // namespace conflux::cell
