#include "conflux/cell/relay_circuit_msgs.hpp"

namespace conflux::cell {

using bytes::ByteSpan;
using bytes::Reader;
using bytes::Writer;

// ---- SENDME --------------------------------------------------------------

Decoded<SendmeMsg> SendmeMsg::decode(ByteSpan body) {
  SendmeMsg m;
  if (body.empty()) return m;  // version 0
  Reader r(body);
  switch (r.u8()) {
    case 0x00:
      return m;  // "the rest of the payload should be ignored"
    case 0x01: {
      const std::uint16_t len = r.u16();
      if (!r.ok()) return fail(DecodeError::Truncated);
      if (len != kSendmeTagLenTor1 && len != kSendmeTagLenCgo) return fail(DecodeError::BadLength);
      SendmeTag tag;
      tag.len = static_cast<std::uint8_t>(len);
      r.copy_to(std::span<std::uint8_t>(tag.bytes).first(len));
      if (!r.ok()) return fail(DecodeError::Truncated);
      m.tag = tag;
      return m;
    }
    default:
      return fail(DecodeError::BadVersion);
  }
}

void SendmeMsg::encode(Writer& w) const {
  if (!tag) return;  // v0: empty body
  w.u8(0x01);
  w.u16(tag->len);
  w.put(tag->view());
}

// ---- EXTEND2 -------------------------------------------------------------

Decoded<Extend2Msg> Extend2Msg::decode(ByteSpan body) {
  Extend2Msg m;
  Reader r(body);
  const std::uint8_t nspec = r.u8();
  if (!r.ok()) return fail(DecodeError::Truncated);
  bool have_legacy = false;
  bool have_ed = false;
  m.link_specs.reserve(nspec);
  for (unsigned i = 0; i < nspec; ++i) {
    auto ls = read_link_spec(r);
    if (!ls) return fail(ls.error());
    // "At most one may be listed" for each identity type.
    if (std::holds_alternative<LinkSpecLegacyId>(*ls)) {
      if (have_legacy) return fail(DecodeError::BadValue);
      have_legacy = true;
    } else if (std::holds_alternative<LinkSpecEd25519Id>(*ls)) {
      if (have_ed) return fail(DecodeError::BadValue);
      have_ed = true;
    }
    m.link_specs.push_back(std::move(*ls));
  }
  m.handshake_type = r.u16();
  const std::uint16_t hlen = r.u16();
  ByteSpan hdata = r.take(hlen);
  if (!r.ok()) return fail(DecodeError::Truncated);
  m.handshake_data.assign(hdata.begin(), hdata.end());
  return m;
}

void Extend2Msg::encode(Writer& w) const {
  w.u8(static_cast<std::uint8_t>(link_specs.size()));
  for (const auto& ls : link_specs) write_link_spec(w, ls);
  w.u16(handshake_type);
  w.u16(static_cast<std::uint16_t>(handshake_data.size()));
  w.put(handshake_data);
}

// ---- EXTENDED2 -----------------------------------------------------------

Decoded<Extended2Msg> Extended2Msg::decode(ByteSpan body) {
  Reader r(body);
  const std::uint16_t hlen = r.u16();
  ByteSpan hdata = r.take(hlen);
  if (!r.ok()) return fail(DecodeError::Truncated);
  return Extended2Msg{std::vector<std::uint8_t>(hdata.begin(), hdata.end())};
}

void Extended2Msg::encode(Writer& w) const {
  w.u16(static_cast<std::uint16_t>(handshake_data.size()));
  w.put(handshake_data);
}

// ---- TRUNCATE / TRUNCATED / DROP -----------------------------------------

Decoded<TruncateMsg> TruncateMsg::decode(ByteSpan) { return TruncateMsg{}; }
void TruncateMsg::encode(Writer&) const {}

Decoded<TruncatedMsg> TruncatedMsg::decode(ByteSpan body) {
  if (body.empty()) return fail(DecodeError::Truncated);
  return TruncatedMsg{static_cast<DestroyReason>(body[0])};
}
void TruncatedMsg::encode(Writer& w) const { w.u8(static_cast<std::uint8_t>(reason)); }

Decoded<DropMsg> DropMsg::decode(ByteSpan body) {
  return DropMsg{std::vector<std::uint8_t>(body.begin(), body.end())};
}
void DropMsg::encode(Writer& w) const { w.put(padding); }

}  // namespace conflux::cell
