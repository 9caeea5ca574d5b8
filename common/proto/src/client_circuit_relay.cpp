// Relay cells of a client circuit, both ways: layered tor1 crypto per hop,
// EXTENDED2 and TRUNCATED, and the last hop's circuit SENDMEs.
#include <algorithm>

#include "conflux/cell/relay_header.hpp"
#include "conflux/proto/client_circuit.hpp"

namespace conflux::proto {

bool ClientCircuit::send(HopNum hop, StreamId stream, const cell::RelayMsg& msg) {
  if (state_ != State::Ready) return false;
  return send_relay(hop, stream, msg, false);
}

bool ClientCircuit::send_relay(HopNum hop, StreamId stream, const cell::RelayMsg& msg, bool early) {
  const bool is_data = std::holds_alternative<cell::DataMsg>(msg);
  if (is_data && !flow_.can_send()) return false;
  auto payload = cell::encode_relay_msg_payload(stream, msg);
  if (!payload) return false;
  auto digest = crypto_.encrypt_outbound(hop, *payload);
  if (!digest) return false;
  // The crypto state advanced: from here the cell must go out, or the
  // circuit's forward stream is out of step with the relays'.
  if (is_data && !flow_.on_data_sent(now(), *digest)) {
    fail("package window accounting failed");
    return false;
  }
  if (early) --early_left_;
  emit_cell(early ? cell::CellCommand::RelayEarly : cell::CellCommand::Relay, *payload);
  return true;
}

void ClientCircuit::on_relay(std::span<const std::uint8_t> payload) {
  cell::RelayPayload p{};
  if (payload.size() != p.size()) return fail("relay cell of the wrong size");
  std::copy(payload.begin(), payload.end(), p.begin());
  auto hop = crypto_.decrypt_inbound(p);
  if (!hop) return fail("a relay cell no hop recognized");
  auto view = cell::decode_relay_payload(p);
  if (!view) return fail("malformed relay cell");
  auto msg = cell::decode_relay_msg(*view);
  if (!msg) {
    if (msg.error() == cell::DecodeError::UnknownCommand) return;  // dropped, as tor does
    return fail("malformed relay message");
  }
  const bool last_hop = hop->value() == hops();
  if (auto* extended = std::get_if<cell::Extended2Msg>(&*msg)) {
    if (!pending_ || state_ != State::Extending || !last_hop) return fail("unexpected EXTENDED2");
    if (!add_hop(extended->handshake_data)) return fail("extend handshake failed");
    return;
  }
  if (auto* truncated = std::get_if<cell::TruncatedMsg>(&*msg)) {
    // We never re-extend a truncated circuit: the rest of it goes too.
    destroyed_ = truncated->reason;
    return destroy(cell::DestroyReason::None);
  }
  if (auto* sendme = std::get_if<cell::SendmeMsg>(&*msg); sendme && view->stream == StreamId{0}) {
    const CcChannelState chan = config_.channel_state ? config_.channel_state() : CcChannelState{};
    if (!last_hop || !flow_.on_sendme(now(), *sendme, chan)) return fail("bad circuit SENDME");
    actions_.emplace_back(ClientSendmeAccepted{*hop, *sendme});
    return;
  }
  if (std::holds_alternative<cell::DataMsg>(*msg) && last_hop) return on_data(*hop, view->stream, std::move(*msg));
  actions_.emplace_back(ClientDeliver{*hop, view->stream, std::move(*msg)});
}

void ClientCircuit::on_data(HopNum hop, StreamId stream, cell::RelayMsg msg) {
  auto digest = crypto_.last_received_digest(hop);
  if (!digest) return fail("no digest for a recognized cell");
  auto due = flow_.on_data_received(*digest);
  if (!due) return fail("DATA beyond the circuit window");
  // Queued before the DATA is handed on, so whatever the runtime sends in
  // reaction to the DATA follows the SENDME on the wire.
  if (*due && !send_relay(hop, StreamId{0}, **due, false)) return;
  actions_.emplace_back(ClientDeliver{hop, stream, std::move(msg)});
}

}  // namespace conflux::proto
