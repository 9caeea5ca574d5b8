// net::run_client_circuit, the runtime's half of a client circuit: cells to
// the sink in order, everything else to the owner, and a refused cell
// reported back to the machine before anything after it is carried out.
#include <catch2/catch.hpp>
#include <vector>

#include "conflux/cell/destroy_cell.hpp"
#include "conflux/net/client_circuit_runner.hpp"

using namespace conflux;

namespace {

struct Sent {
  CircId circ;
  cell::CellCommand command;
  std::vector<std::uint8_t> body;
};

proto::HopTarget some_relay() {
  return {crypto::Ed25519Keypair::generate().public_key(), crypto::X25519Secret::generate().public_key(), {}};
}

}  // namespace

TEST_CASE("runner: the machine's cells reach the sink in order", "[net][client_circuit]") {
  proto::ClientCircuit c(CircId{0x80000003u});
  std::vector<Sent> sent;
  int events = 0;
  auto sink = [&](CircId id, cell::CellCommand cmd, bytes::ByteSpan body) {
    sent.push_back({id, cmd, {body.begin(), body.end()}});
    return true;
  };
  REQUIRE(c.create(some_relay()));
  c.destroy(cell::DestroyReason::Finished);
  net::run_client_circuit(c, sink, [&](proto::ClientCircuitAction&) { ++events; });
  REQUIRE(sent.size() == 2);
  CHECK(sent[0].circ == CircId{0x80000003u});
  CHECK(sent[0].command == cell::CellCommand::Create2);
  CHECK(sent[1].command == cell::CellCommand::Destroy);
  CHECK(cell::decode_destroy_cell(sent[1].body)->reason == cell::DestroyReason::Finished);
  CHECK(events == 0);
  CHECK(c.take_actions().empty());
}

TEST_CASE("runner: a refused CREATE2 closes the circuit, whose DESTROY is then tried", "[net][client_circuit]") {
  proto::ClientCircuit c(CircId{0x80000003u});
  std::vector<cell::CellCommand> tried;
  auto refuse = [&](CircId, cell::CellCommand cmd, bytes::ByteSpan) {
    tried.push_back(cmd);
    return false;
  };
  REQUIRE(c.create(some_relay()));
  net::run_client_circuit(c, refuse, {});
  CHECK(c.state() == proto::ClientCircuit::State::Closed);
  CHECK(tried == std::vector<cell::CellCommand>{cell::CellCommand::Create2, cell::CellCommand::Destroy});
}
