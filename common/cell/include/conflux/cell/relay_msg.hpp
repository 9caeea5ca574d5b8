#pragma once
// RelayMsg: every relay message this project speaks, as one sum type, so the
// layers above can std::visit on what arrived.
//
//   auto view = decode_relay_payload(payload);        // header (relay_header.hpp)
//   auto msg  = decode_relay_msg(view->command, view->body);
//   std::visit(overloaded{...}, *msg);
//
// Commands tor knows but we do not implement (EXTEND/EXTENDED, onion-service
// and circuit-padding commands) and numbers nobody defines both give
// DecodeError::UnknownCommand; is_known(cmd) tells them apart (tor drops a
// recognized cell with an unknown command, and closes on most others).
#include <cstdint>
#include <variant>
#include <vector>

#include "conflux/bytes/reader.hpp"
#include "conflux/bytes/result.hpp"
#include "conflux/bytes/strong_int.hpp"
#include "conflux/cell/error.hpp"
#include "conflux/cell/relay_circuit_msgs.hpp"
#include "conflux/cell/relay_command.hpp"
#include "conflux/cell/relay_conflux_msgs.hpp"
#include "conflux/cell/relay_flow_msgs.hpp"
#include "conflux/cell/relay_header.hpp"
#include "conflux/cell/relay_stream_msgs.hpp"

namespace conflux::cell {

using RelayMsg = std::variant<BeginMsg, DataMsg, EndMsg, ConnectedMsg, SendmeMsg, TruncateMsg,
                              TruncatedMsg, DropMsg, ResolveMsg, ResolvedMsg, BeginDirMsg,
                              Extend2Msg, Extended2Msg, ConfluxLinkMsg, ConfluxLinkedMsg,
                              ConfluxLinkedAckMsg, ConfluxSwitchMsg, XoffMsg, XonMsg>;

// Decodes a relay body (at most 498 bytes, else BadLength) as 'command'.
Decoded<RelayMsg> decode_relay_msg(RelayCommand command, bytes::ByteSpan body);
inline Decoded<RelayMsg> decode_relay_msg(const RelayCellView& cell) {
  return decode_relay_msg(cell.command, cell.body);
}

// The canonical body of 'msg' (not yet framed; see encode_relay_msg_payload).
std::vector<std::uint8_t> encode_relay_msg(const RelayMsg& msg);

[[nodiscard]] RelayCommand command_of(const RelayMsg& msg) noexcept;

// Body + v0 header + padding in one step. BadLength if the body exceeds 498
// bytes (e.g. a too-long hostname or DATA).
Result<RelayPayload, DecodeError> encode_relay_msg_payload(
    StreamId stream, const RelayMsg& msg, PaddingSource pad = &crypto::random_bytes);

}  // namespace conflux::cell
