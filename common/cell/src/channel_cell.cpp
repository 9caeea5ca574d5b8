#include "conflux/cell/channel_cell.hpp"

#include <algorithm>

namespace conflux::cell {

FrameResult frame_cell(bytes::ByteSpan buffered, LinkVersion link, FramerLimits limits) noexcept {
  const std::size_t id_len = circ_id_len(link);
  if (buffered.size() < id_len + 1) return NeedMore{id_len + 1};

  bytes::Reader r(buffered);
  const CircId circ_id{id_len == 4 ? r.u32() : r.u16()};
  const std::uint8_t raw_cmd = r.u8();
  const bool variable = is_variable_length_raw(raw_cmd, link);

  std::size_t header_len = id_len + 1;
  std::size_t payload_len = kCellPayloadLen;
  if (variable) {
    header_len += 2;
    if (buffered.size() < header_len) return NeedMore{header_len};
    payload_len = r.u16();
    // Refuse before buffering: the whole point of a limit is not to wait for it.
    if (payload_len > limits.max_var_payload) return FrameError{DecodeError::BadLength, 0};
  }
  const std::size_t total = header_len + payload_len;
  if (buffered.size() < total) return NeedMore{total};

  const auto cmd = cell_command_from_u8(raw_cmd);
  if (!cmd || is_variable_length_command(*cmd) != variable)
    return FrameError{DecodeError::UnknownCommand, total};
  return Framed{CellView{circ_id, *cmd, buffered.subspan(header_len, payload_len)}, total};
}

std::string_view to_string(CellEncodeError e) noexcept {
  switch (e) {
    case CellEncodeError::CircIdTooWide: return "circuit ID too wide for link version";
    case CellEncodeError::PayloadTooLong: return "payload too long";
    case CellEncodeError::WrongCellKind: return "wrong cell kind (fixed/variable) for command";
    case CellEncodeError::TooManyItems: return "too many items for count field";
    case CellEncodeError::BadValue: return "bad value";
  }
  return "unknown encode error";
}

namespace {

// Header checks shared by both encoders; writes nothing.
CellEncoded<std::size_t> check_header(LinkVersion link, CircId circ_id, CellCommand cmd,
                                      bool want_variable) {
  if (circ_id_len(link) == 2 && circ_id.value() > 0xFFFFu) return fail(CellEncodeError::CircIdTooWide);
  if (is_variable_length(cmd, link) != want_variable || is_variable_length_command(cmd) != want_variable)
    return fail(CellEncodeError::WrongCellKind);
  return circ_id_len(link);
}

// Into a growing Writer or a fixed SpanWriter alike.
template <class W>
void put_header(W& out, std::size_t id_len, CircId circ_id, CellCommand cmd) {
  if (id_len == 4)
    out.u32(circ_id.value());
  else
    out.u16(static_cast<std::uint16_t>(circ_id.value()));
  out.u8(static_cast<std::uint8_t>(cmd));
}

}  // namespace

CellEncoded<std::size_t> append_fixed_cell(bytes::Writer& out, LinkVersion link, CircId circ_id,
                                           CellCommand cmd, bytes::ByteSpan payload) {
  auto id_len = check_header(link, circ_id, cmd, false);
  if (!id_len) return id_len;
  if (payload.size() > kCellPayloadLen) return fail(CellEncodeError::PayloadTooLong);
  put_header(out, *id_len, circ_id, cmd);
  out.put(payload);
  out.zeros(kCellPayloadLen - payload.size());
  return fixed_cell_len(link);
}

CellEncoded<std::size_t> write_fixed_cell(bytes::MutByteSpan out, LinkVersion link, CircId circ_id, CellCommand cmd,
                                          bytes::ByteSpan payload) {
  auto id_len = check_header(link, circ_id, cmd, false);
  if (!id_len) return id_len;
  if (payload.size() > kCellPayloadLen) return fail(CellEncodeError::PayloadTooLong);
  const std::size_t len = fixed_cell_len(link);
  if (out.size() < len) return fail(CellEncodeError::PayloadTooLong);
  bytes::SpanWriter w(out.first(*id_len + 1));
  put_header(w, *id_len, circ_id, cmd);
  auto body = out.subspan(*id_len + 1, kCellPayloadLen);
  std::copy(payload.begin(), payload.end(), body.begin());
  std::fill(body.begin() + static_cast<std::ptrdiff_t>(payload.size()), body.end(), std::uint8_t{0});
  return len;
}

CellEncoded<std::size_t> append_var_cell(bytes::Writer& out, LinkVersion link, CircId circ_id,
                                         CellCommand cmd, bytes::ByteSpan payload) {
  auto id_len = check_header(link, circ_id, cmd, true);
  if (!id_len) return id_len;
  if (payload.size() > kMaxVarPayloadLen) return fail(CellEncodeError::PayloadTooLong);
  put_header(out, *id_len, circ_id, cmd);
  out.u16(static_cast<std::uint16_t>(payload.size()));
  out.put(payload);
  return var_cell_header_len(link) + payload.size();
}

CellEncoded<std::size_t> append_cell(bytes::Writer& out, LinkVersion link, CircId circ_id,
                                     CellCommand cmd, bytes::ByteSpan payload) {
  if (is_variable_length(cmd, link)) return append_var_cell(out, link, circ_id, cmd, payload);
  return append_fixed_cell(out, link, circ_id, cmd, payload);
}

CellEncoded<std::vector<std::uint8_t>> encode_cell(LinkVersion link, CircId circ_id, CellCommand cmd,
                                                   bytes::ByteSpan payload) {
  bytes::Writer w(var_cell_header_len(link) + std::max(payload.size(), kCellPayloadLen));
  auto n = append_cell(w, link, circ_id, cmd, payload);
  if (!n) return fail(n.error());
  return std::move(w).take();
}

}  // namespace conflux::cell
