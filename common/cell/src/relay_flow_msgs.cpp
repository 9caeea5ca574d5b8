#include "conflux/cell/relay_flow_msgs.hpp"

namespace conflux::cell {

namespace {
constexpr std::uint8_t kFlowCtrlVersion = 0;
}

Decoded<XoffMsg> XoffMsg::decode(bytes::ByteSpan body) {
  bytes::Reader r(body);
  const std::uint8_t version = r.u8();
  if (!r.ok()) return fail(DecodeError::Truncated);
  if (version != kFlowCtrlVersion) return fail(DecodeError::BadVersion);
  return XoffMsg{};
}

void XoffMsg::encode(bytes::Writer& w) const { w.u8(kFlowCtrlVersion); }

Decoded<XonMsg> XonMsg::decode(bytes::ByteSpan body) {
  bytes::Reader r(body);
  const std::uint8_t version = r.u8();
  const std::uint32_t rate = r.u32();
  if (!r.ok()) return fail(DecodeError::Truncated);
  if (version != kFlowCtrlVersion) return fail(DecodeError::BadVersion);
  return XonMsg{rate};
}

void XonMsg::encode(bytes::Writer& w) const {
  w.u8(kFlowCtrlVersion);
  w.u32(kbps_ewma);
}

}  // namespace conflux::cell
