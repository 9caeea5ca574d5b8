#pragma once
// Stream flow control with congestion control (prop 324 section 4; tor's
// flow_control_cells.trunnel): XOFF and XON. Both carry the stream ID and
// replace stream-level SENDMEs on circuits that negotiated congestion control.
#include <cstdint>

#include "conflux/bytes/reader.hpp"
#include "conflux/bytes/writer.hpp"
#include "conflux/cell/error.hpp"
#include "conflux/cell/relay_command.hpp"

namespace conflux::cell {

// XOFF (43): version u8, which must be 0. Trailing bytes are ignored, as
// tor's parser ignores them.
struct XoffMsg {
  static constexpr RelayCommand kCommand = RelayCommand::Xoff;

  static Decoded<XoffMsg> decode(bytes::ByteSpan body);
  void encode(bytes::Writer& w) const;
  friend bool operator==(const XoffMsg&, const XoffMsg&) = default;
};

// XON (44): version u8 (must be 0) | kbps_ewma u32, the sender's drain-rate
// estimate in units of 1000 bytes/s, 0 meaning "unlimited". Trailing bytes
// are ignored.
struct XonMsg {
  static constexpr RelayCommand kCommand = RelayCommand::Xon;
  std::uint32_t kbps_ewma = 0;

  static Decoded<XonMsg> decode(bytes::ByteSpan body);
  void encode(bytes::Writer& w) const;
  friend bool operator==(const XonMsg&, const XonMsg&) = default;
};

}  // namespace conflux::cell
