#include "conflux/net/client_circuit_runner.hpp"

#include <variant>

namespace conflux::net {

void run_client_circuit(proto::ClientCircuit& circuit, const CircuitCellSink& sink, const CircuitEventSink& events) {
  for (auto batch = circuit.take_actions(); !batch.empty(); batch = circuit.take_actions()) {
    for (auto& action : batch) {
      if (auto* out = std::get_if<proto::ClientSendCell>(&action)) {
        if (sink(out->circ, out->command, out->body.view())) continue;
        circuit.on_cell_not_sent(out->command);
        break;
      }
      if (events) events(action);
    }
  }
}

}  // namespace conflux::net
