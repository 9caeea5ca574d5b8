#pragma once
// A proto::ClientCircuit (the client's circuit machine) driven over a cell
// sink, with an inbox for callers that poll: tests and benchmarks that use a
// circuit without the proxy. Cells go out through the sink (e.g.
// ClientLink::send); the caller feeds the cells of this circuit to on_cell().
// The proxy's own circuits (client::Circuit) run the machine directly and
// hand what arrives to its streams at once instead.
#include <cstddef>
#include <deque>
#include <optional>
#include <string>

#include "conflux/net/client_circuit_runner.hpp"
#include "conflux/proto/client_circuit.hpp"

namespace conflux::net {

using HopTarget = proto::HopTarget;

struct ReceivedMsg {
  HopNum hop;
  StreamId stream;
  cell::RelayMsg msg;
};

class ClientCircuit {
 public:
  using CellSink = CircuitCellSink;
  using State = proto::ClientCircuit::State;

  static constexpr std::size_t kDefaultMaxInbox = 4096;

  ClientCircuit(CircId id, CellSink sink, std::size_t max_inbox = kDefaultMaxInbox,
                proto::ClientCircuitConfig config = {});

  // As proto::ClientCircuit's; false as well when the cell did not go out.
  bool create(const HopTarget& first, proto::HopOptions options = {});
  bool create_fast();
  bool extend(const HopTarget& next, proto::HopOptions options = {});
  bool send(HopNum hop, StreamId stream, const cell::RelayMsg& msg);
  void destroy(cell::DestroyReason reason);
  void on_cell(const cell::CellView& c);

  [[nodiscard]] CircId id() const noexcept { return machine_.id(); }
  [[nodiscard]] State state() const noexcept { return machine_.state(); }
  [[nodiscard]] std::size_t hops() const noexcept { return machine_.hops(); }
  [[nodiscard]] std::optional<cell::DestroyReason> destroyed() const noexcept { return machine_.destroyed(); }
  // Also "inbox full" when the caller let max_inbox messages pile up.
  [[nodiscard]] const std::optional<std::string>& error() const noexcept { return machine_.error(); }
  // Stream messages (and anything else the machine does not consume),
  // oldest first. Every circuit SENDME accepted from the last hop is also
  // reported here, as stream 0 (Conflux legs time their RTT on it).
  [[nodiscard]] std::deque<ReceivedMsg>& inbox() noexcept { return inbox_; }
  [[nodiscard]] bool can_send_data() const noexcept { return machine_.can_send_data(); }
  [[nodiscard]] const proto::ClientCircuit& machine() const noexcept { return machine_; }

 private:
  // Runs the machine's actions; false if it closed meanwhile.
  bool run();
  void on_event(proto::ClientCircuitAction& action);

  proto::ClientCircuit machine_;
  CellSink sink_;
  std::size_t max_inbox_;
  std::deque<ReceivedMsg> inbox_;
};

}  // namespace conflux::net
