#pragma once
// The seam between the relay runtime (channels, circuit switch) and the exit
// module (streams to the Internet). The runtime calls ExitHandler with what
// the circuit switch delivers; the exit module answers through
// CircuitOutput, which the runtime implements by calling the switch and then
// carrying out the switch's actions.
#include <optional>
#include <vector>

#include "conflux/bytes/strong_int.hpp"
#include "conflux/cell/destroy_cell.hpp"
#include "conflux/cell/relay_msg.hpp"
#include "conflux/proto/circuit_switch.hpp"

namespace conflux::proto {

class CircuitOutput {
 public:
  virtual ~CircuitOutput() = default;
  // False if the circuit is gone, or for DATA when the circuit's package
  // window is empty (wait for ExitHandler::on_circuit_writable).
  virtual bool send_to_client(CircuitHandle circuit, StreamId stream, const cell::RelayMsg& msg) = 0;
  [[nodiscard]] virtual bool can_send_data(CircuitHandle circuit) const = 0;
  // Whether the circuit negotiated congestion control (prop 324): its streams
  // then send no stream SENDMEs and their package windows do not limit.
  [[nodiscard]] virtual bool uses_congestion_control(CircuitHandle /*circuit*/) const { return false; }
  // The circuit's flow control (a Conflux set at the exit follows a
  // congestion-controlled leg's cwnd); nullopt if unknown.
  [[nodiscard]] virtual std::optional<RelayCircuitFlowInfo> flow_info(CircuitHandle /*circuit*/) const {
    return std::nullopt;
  }
  // Its cells wait past cellq_high on the channel towards the client (tor's
  // circuit_blocked_on_p_chan): can_send_data() says no, a Conflux leg takes
  // no new DATA, and on_circuit_writable follows once the queue drained.
  [[nodiscard]] virtual bool blocked_on_channel(CircuitHandle /*circuit*/) const { return false; }
  virtual void close_circuit(CircuitHandle circuit, cell::DestroyReason reason) = 0;
  // The channel the circuit came in on (its previous hop), if known: the
  // Conflux join point attributes LINKs to it for its per-origin caps.
  [[nodiscard]] virtual std::optional<ChannelId> client_channel(CircuitHandle /*circuit*/) const {
    return std::nullopt;
  }
};

// Client bytes an exit holds for the servers of one circuit's streams, and
// since when the oldest of them waits (MaxMemInQueues counts them, as tor
// counts its connections' buffers).
struct BufferedCircuit {
  CircuitHandle circuit = 0;
  std::size_t bytes = 0;
  CcClock::time_point oldest{};
};

class ExitHandler {
 public:
  virtual ~ExitHandler() = default;
  // Bytes held for servers, all streams together (O(1): read after every
  // batch of cells), and by circuit (O(streams): only at the limit).
  [[nodiscard]] virtual std::size_t buffered_bytes() const { return 0; }
  [[nodiscard]] virtual std::vector<BufferedCircuit> buffered_circuits() const { return {}; }
  // MaxMemInQueues chose `circuit`, a handle of buffered_circuits() that is
  // not the switch's own (a Conflux set's): close it with RESOURCELIMIT.
  // False when the handle is not such a circuit, or no longer open.
  virtual bool close_for_memory(CircuitHandle /*circuit*/) { return false; }
  // A stream message (BEGIN, BEGIN_DIR, DATA, END, RESOLVE, stream SENDME, XON/XOFF,
  // Conflux commands with stream 0) addressed to this relay as the last hop.
  virtual void on_stream_message(CircuitHandle circuit, StreamId stream, cell::RelayMsg msg) = 0;
  // The circuit's package window reopened, or its queue on the channel
  // towards the client drained (CircuitOutput::blocked_on_channel).
  virtual void on_circuit_writable(CircuitHandle circuit) = 0;
  // A circuit SENDME from the client was accepted on the circuit (each one;
  // on_circuit_writable follows when it reopened the window). Only the
  // Conflux join point needs it: it acknowledges a leg's cells.
  virtual void on_circuit_sendme(CircuitHandle /*circuit*/) {}
  // The circuit is gone: drop its streams without sending anything on it.
  virtual void on_circuit_closed(CircuitHandle circuit, cell::DestroyReason reason) = 0;
};

}  // namespace conflux::proto
