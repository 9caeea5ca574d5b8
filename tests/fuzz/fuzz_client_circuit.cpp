// The client's circuit machine (proto::ClientCircuit) under cells a hostile
// guard chooses: raw cells of any command and length, and relay cells the
// hop seals properly (so the fuzzer reaches the decoders and the SENDME,
// EXTENDED2 and TRUNCATED rules behind the crypto), mixed with the
// runtime's own events (sends, refused cells, destroy). Nothing may crash,
// every cell the machine emits is on its own circuit ID and fits a cell,
// and once it is closed nothing more comes out of it.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <variant>
#include <vector>

#include "conflux/cell/create_cells.hpp"
#include "conflux/cell/relay_header.hpp"
#include "conflux/crypto/ntor_v3.hpp"
#include "conflux/crypto/relay_crypto.hpp"
#include "conflux/proto/client_circuit.hpp"
#include "fuzz_input.hpp"

namespace {

using namespace conflux;
using conflux::fuzz::Input;

constexpr CircId kCirc{0x80000001u};

void check(bool ok) {
  if (!ok) __builtin_trap();
}

struct Relay {
  crypto::Ed25519Keypair identity = crypto::Ed25519Keypair::generate();
  crypto::X25519Secret onion = crypto::X25519Secret::generate();
};

const Relay& relay() {
  static const Relay r;
  return r;
}

// Checks what the machine emitted; false once it emitted anything at all.
bool drain(proto::ClientCircuit& c) {
  auto actions = c.take_actions();
  for (auto& a : actions)
    if (auto* out = std::get_if<proto::ClientSendCell>(&a)) check(out->circ == kCirc && out->body.size <= 509);
  return actions.empty();
}

// A one-hop circuit to relay(), and the relay's side of its crypto.
std::optional<crypto::RelayHopCrypto> build(proto::ClientCircuit& c) {
  const auto& r = relay();
  check(c.create(proto::HopTarget{r.identity.public_key(), r.onion.public_key(), {}}));
  auto create = std::get<proto::ClientSendCell>(c.take_actions().at(0));
  auto c2 = cell::decode_create2_cell(create.body.view());
  crypto::NtorV3ServerKeys keys{r.identity.public_key(), r.onion, std::nullopt};
  auto pending = crypto::ntor_v3_server_receive(keys, c2->hdata, crypto::kNtorV3CircuitVerification);
  auto done = pending->reply({}, crypto::RelayCryptoKeys::kMaterialLen);
  auto created = std::move(cell::encode_created2_cell(cell::Created2Cell{done->reply})).value();
  c.on_cell(cell::CellView{kCirc, cell::CellCommand::Created2, created});
  check(c.state() == proto::ClientCircuit::State::Ready);
  (void)c.take_actions();
  return crypto::RelayHopCrypto(*crypto::RelayCryptoKeys::from_key_material(done->keys.view()));
}

std::vector<std::uint8_t> bytes_of(Input& in, std::size_t max) {
  std::vector<std::uint8_t> b(std::min<std::size_t>(in.u8() * 2u, max));
  for (auto& x : b) x = in.u8();
  return b;
}

void step(Input& in, proto::ClientCircuit& c, crypto::RelayHopCrypto& hop) {
  switch (in.u8() % 6) {
    case 0: {  // a raw cell
      const auto cmd = static_cast<cell::CellCommand>(in.u8());
      const auto body = bytes_of(in, 509);
      return c.on_cell(cell::CellView{kCirc, cmd, body});
    }
    case 1:
    case 2: {  // a relay cell the hop sealed
      const auto command = static_cast<cell::RelayCommand>(in.u8());
      const StreamId stream{static_cast<std::uint16_t>(in.u8() & 3)};
      const auto body = bytes_of(in, cell::kRelayBodyMaxLen);
      auto p = cell::encode_relay_payload(command, stream, body);
      if (!p) return;
      hop.originate_backward(*p);
      return c.on_cell(cell::CellView{kCirc, cell::CellCommand::Relay, *p});
    }
    case 3:
      (void)c.send(HopNum{static_cast<std::uint8_t>(in.u8() % 3)}, StreamId{1}, cell::DataMsg{bytes_of(in, 498)});
      return;
    case 4:
      return c.on_cell_not_sent(static_cast<cell::CellCommand>(in.u8()));
    default:
      return c.destroy(static_cast<cell::DestroyReason>(in.u8()));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in{data, size};
  proto::ClientCircuit c(kCirc);
  auto hop = build(c);
  for (int i = 0; i < 64 && !in.empty(); ++i) {
    const bool was_closed = c.state() == proto::ClientCircuit::State::Closed;
    step(in, c, *hop);
    const bool quiet = drain(c);
    if (was_closed) check(quiet);
  }
  return 0;
}
