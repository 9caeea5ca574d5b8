#include "conflux/cell/relay_conflux_msgs.hpp"

namespace conflux::cell {
namespace {

// Whether our extension list after the 50 bytes offers resumption; bytes
// that are not a well-formed list mean nothing (tor sends none).
bool read_offers_resumption(bytes::Reader& r) {
  if (r.empty()) return false;
  const std::uint8_t n = r.u8();
  bool resumption = false;
  for (std::uint8_t i = 0; i < n && r.ok(); ++i) {
    const std::uint8_t type = r.u8();
    const std::uint8_t len = r.u8();
    (void)r.take(len);
    if (r.ok() && type == kConfluxExtResumption) resumption = true;
  }
  return r.ok() && resumption;
}

}  // namespace

Decoded<ConfluxLinkFields> decode_conflux_link_fields(bytes::ByteSpan body) {
  bytes::Reader r(body);
  const std::uint8_t version = r.u8();
  if (!r.ok()) return fail(DecodeError::Truncated);
  if (version != kConfluxLinkVersion) return fail(DecodeError::BadVersion);
  ConfluxLinkFields f;
  r.copy_to(f.nonce);
  f.last_seqno_sent = SeqAbs(r.u64());
  f.last_seqno_recv = SeqAbs(r.u64());
  const std::uint8_t ux = r.u8();
  if (!r.ok()) return fail(DecodeError::Truncated);
  if (ux > static_cast<std::uint8_t>(ConfluxUx::LowMemThroughput)) return fail(DecodeError::BadValue);
  f.desired_ux = static_cast<ConfluxUx>(ux);
  f.offers_resumption = read_offers_resumption(r);
  return f;
}

void encode_conflux_link_fields(bytes::Writer& w, const ConfluxLinkFields& f) {
  w.u8(kConfluxLinkVersion);
  w.put(f.nonce);
  w.u64(f.last_seqno_sent.value());
  w.u64(f.last_seqno_recv.value());
  w.u8(static_cast<std::uint8_t>(f.desired_ux));
  if (f.offers_resumption) {
    w.u8(1);
    w.u8(kConfluxExtResumption);
    w.u8(0);
  }
}

Decoded<ConfluxLinkMsg> ConfluxLinkMsg::decode(bytes::ByteSpan body) {
  auto f = decode_conflux_link_fields(body);
  if (!f) return fail(f.error());
  return ConfluxLinkMsg{*f};
}

Decoded<ConfluxLinkedMsg> ConfluxLinkedMsg::decode(bytes::ByteSpan body) {
  auto f = decode_conflux_link_fields(body);
  if (!f) return fail(f.error());
  return ConfluxLinkedMsg{*f};
}

Decoded<ConfluxLinkedAckMsg> ConfluxLinkedAckMsg::decode(bytes::ByteSpan) {
  return ConfluxLinkedAckMsg{};
}
void ConfluxLinkedAckMsg::encode(bytes::Writer&) const {}

Decoded<ConfluxSwitchMsg> ConfluxSwitchMsg::decode(bytes::ByteSpan body) {
  bytes::Reader r(body);
  const std::uint32_t seq = r.u32();
  if (!r.ok()) return fail(DecodeError::Truncated);
  return ConfluxSwitchMsg{SeqRel(seq)};  // trailing bytes (0.4.8 padding) ignored
}

void ConfluxSwitchMsg::encode(bytes::Writer& w) const { w.u32(relative_seq.value()); }

}  // namespace conflux::cell
