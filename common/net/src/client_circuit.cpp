#include "conflux/net/client_circuit.hpp"

#include <utility>
#include <variant>

namespace conflux::net {

ClientCircuit::ClientCircuit(CircId id, CellSink sink, std::size_t max_inbox, proto::ClientCircuitConfig config)
    : machine_(id, std::move(config)), sink_(std::move(sink)), max_inbox_(max_inbox) {}

bool ClientCircuit::run() {
  run_client_circuit(machine_, sink_, [this](proto::ClientCircuitAction& a) { on_event(a); });
  return machine_.state() != State::Closed;
}

void ClientCircuit::on_event(proto::ClientCircuitAction& action) {
  if (auto* d = std::get_if<proto::ClientDeliver>(&action)) {
    if (inbox_.size() >= max_inbox_) return machine_.abort("inbox full");
    inbox_.push_back(ReceivedMsg{d->hop, d->stream, std::move(d->msg)});
  } else if (auto* s = std::get_if<proto::ClientSendmeAccepted>(&action)) {
    if (inbox_.size() >= max_inbox_) return machine_.abort("inbox full");
    inbox_.push_back(ReceivedMsg{s->hop, StreamId{0}, s->sendme});
  }
}

bool ClientCircuit::create(const HopTarget& first, proto::HopOptions options) {
  return machine_.create(first, options) && run();
}

bool ClientCircuit::create_fast() { return machine_.create_fast() && run(); }

bool ClientCircuit::extend(const HopTarget& next, proto::HopOptions options) {
  return machine_.extend(next, options) && run();
}

bool ClientCircuit::send(HopNum hop, StreamId stream, const cell::RelayMsg& msg) {
  const bool ok = machine_.send(hop, stream, msg);
  return run() && ok;
}

void ClientCircuit::destroy(cell::DestroyReason reason) {
  machine_.destroy(reason);
  (void)run();
}

void ClientCircuit::on_cell(const cell::CellView& c) {
  machine_.on_cell(c);
  (void)run();
}

}  // namespace conflux::net
