#pragma once
// Carries out a proto::ClientCircuit's actions at the runtime: its cells go
// to the channel through a sink, everything else to the circuit's owner.
// Shared by client::Circuit (the proxy) and net::ClientCircuit (tests and
// benchmarks that poll), so both drive the one machine the same way.
#include <functional>

#include "conflux/bytes/strong_int.hpp"
#include "conflux/cell/channel_cell.hpp"
#include "conflux/proto/client_circuit.hpp"

namespace conflux::net {

// Queues one cell of circuit `circ` on its channel; false if it could not
// (link not open, queue full). DESTROY goes on the channel's control path.
using CircuitCellSink = std::function<bool(CircId, cell::CellCommand, bytes::ByteSpan)>;
// Every action that is not a cell, in order.
using CircuitEventSink = std::function<void(proto::ClientCircuitAction&)>;

// Drains `circuit`'s actions, then those they caused, until none is left. A
// cell the sink refuses is reported to the circuit at once and the rest of
// its batch is dropped: the circuit has closed, and nothing it decided
// before hearing so may reach the wire or the owner.
void run_client_circuit(proto::ClientCircuit& circuit, const CircuitCellSink& sink, const CircuitEventSink& events);

}  // namespace conflux::net
