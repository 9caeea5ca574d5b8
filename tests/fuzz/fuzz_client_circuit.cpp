// The client's circuit machine (proto::ClientCircuit) under cells a hostile
// guard chooses: raw cells of any command and length, and relay cells the
// hop seals properly (so the fuzzer reaches the decoders and the SENDME,
// EXTENDED2 and TRUNCATED rules behind the crypto), mixed with the
// runtime's own events (sends, refused cells, destroy), over fixed windows
// or congestion control (an ntor-v3 answer the input chooses, and a clock it
// moves). Nothing may crash,
// every cell the machine emits is on its own circuit ID and fits a cell,
// and once it is closed nothing more comes out of it.
#include <chrono>
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

// A one-hop circuit to relay() that asked for congestion control if
// `ask`, answered with `sm`; the relay's side of its crypto, or nothing when
// the answer closed the circuit.
std::optional<crypto::RelayHopCrypto> build(proto::ClientCircuit& c, bool ask, std::span<const std::uint8_t> sm) {
  const auto& r = relay();
  check(c.create(proto::HopTarget{r.identity.public_key(), r.onion.public_key(), {}}, proto::HopOptions{ask}));
  auto create = std::get<proto::ClientSendCell>(c.take_actions().at(0));
  auto c2 = cell::decode_create2_cell(create.body.view());
  crypto::NtorV3ServerKeys keys{r.identity.public_key(), r.onion, std::nullopt};
  auto pending = crypto::ntor_v3_server_receive(keys, c2->hdata, crypto::kNtorV3CircuitVerification);
  auto done = pending->reply(sm, crypto::RelayCryptoKeys::kMaterialLen);
  if (!done) return std::nullopt;
  auto created = cell::encode_created2_cell(cell::Created2Cell{done->reply});
  if (!created) return std::nullopt;
  c.on_cell(cell::CellView{kCirc, cell::CellCommand::Created2, *created});
  if (c.state() != proto::ClientCircuit::State::Ready) return std::nullopt;
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
  proto::CcClock::time_point now{std::chrono::seconds(1)};
  proto::ClientCircuitConfig config;
  config.now = [&now] { return now; };
  proto::ClientCircuit c(kCirc, config);
  // 0: not asked, no answer; 1: asked, sendme_inc 31; 2: asked, any answer.
  const unsigned mode = in.u8() % 3;
  std::vector<std::uint8_t> sm{0};
  if (mode == 1) sm = {1, 2, 1, 31};
  if (mode == 2) sm = bytes_of(in, 64);
  auto hop = build(c, mode != 0, sm);
  if (!hop) {
    check(c.state() == proto::ClientCircuit::State::Closed);
    return 0;
  }
  for (int i = 0; i < 64 && !in.empty(); ++i) {
    const bool was_closed = c.state() == proto::ClientCircuit::State::Closed;
    now += std::chrono::microseconds(in.u8() * 97);
    step(in, c, *hop);
    const bool quiet = drain(c);
    if (was_closed) check(quiet);
  }
  return 0;
}
