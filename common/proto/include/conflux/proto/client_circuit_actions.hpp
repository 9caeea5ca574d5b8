#pragma once
// What the client's circuit machine (client_circuit.hpp) asks its runtime to
// do, and what it needs to know about a relay to build through it. The
// runtime carries the actions out in order, as the relay's runtime does
// with CircuitSwitch's.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <variant>
#include <vector>

#include "conflux/bytes/strong_int.hpp"
#include "conflux/cell/channel_cell.hpp"
#include "conflux/cell/relay_circuit_msgs.hpp"
#include "conflux/cell/relay_link_spec.hpp"
#include "conflux/cell/relay_msg.hpp"
#include "conflux/crypto/ed25519.hpp"
#include "conflux/crypto/x25519.hpp"

namespace conflux::proto {

// What a client knows about a relay (from its descriptor).
struct HopTarget {
  crypto::Ed25519Public identity{};
  crypto::X25519Public onion_key{};
  // Addresses for EXTEND2 (IPv4/IPv6); the Ed25519 identity is added.
  std::vector<cell::LinkSpec> link_specs;
};

// A fixed cell's payload, unpadded: the runtime frames and pads it exactly as
// it would the encoder's own bytes, so the wire does not depend on who built
// it. A fixed array, not a vector: one DATA cell must not cost an allocation.
struct CellBody {
  std::array<std::uint8_t, cell::kCellPayloadLen> bytes{};
  std::size_t size = 0;

  [[nodiscard]] std::span<const std::uint8_t> view() const noexcept { return {bytes.data(), size}; }
};

// Queue this cell on the circuit's channel (CREATE2, CREATE_FAST, RELAY,
// RELAY_EARLY, DESTROY). A cell the channel refuses is reported back with
// ClientCircuit::on_cell_not_sent before any later action is carried out.
struct ClientSendCell {
  CircId circ;
  cell::CellCommand command;
  CellBody body;
};
// A hop finished its handshake; `server_message` is its ntor-v3 reply (SM:
// where a congestion-control answer is), empty for CREATE_FAST.
struct ClientHopAdded {
  HopNum hop;
  std::vector<std::uint8_t> server_message;
};
// A relay message from `hop` that the circuit does not consume itself
// (stream messages, Conflux cells, DROP...).
struct ClientDeliver {
  HopNum hop;
  StreamId stream;
  cell::RelayMsg msg;
};
// A circuit SENDME from the last hop, after the package window took it: a
// Conflux leg's owner times its RTT and window on it.
struct ClientSendmeAccepted {
  HopNum hop;
  cell::SendmeMsg sendme;
};
using ClientCircuitAction = std::variant<ClientSendCell, ClientHopAdded, ClientDeliver, ClientSendmeAccepted>;

}  // namespace conflux::proto
