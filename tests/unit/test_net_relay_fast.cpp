// CREATE_FAST end to end: a ClientCircuit over a real TLS link on loopback
// makes a one-hop circuit to an in-process relay without knowing its onion
// key, exchanges relay messages, extends onward; a bad KH in CREATED_FAST
// makes the client give up with DESTROY PROTOCOL.
#include "test_net_relay_support.hpp"

#include "conflux/cell/create_cells.hpp"

using namespace conflux;
using namespace conflux::test;

namespace {

struct TwoRelays {
  boost::asio::io_context io;
  net::SystemClock clock;
  TestRelay first{io, clock, {}};
  TestRelay second{io, clock, {}};
};

std::unique_ptr<net::ClientCircuit> fast_circuit(boost::asio::io_context& io, TestClient& client) {
  auto circ = client.new_circuit();
  REQUIRE(circ->create_fast());
  CHECK(circ->state() == net::ClientCircuit::State::Extending);
  CHECK_FALSE(circ->create_fast());  // only once, from Idle
  REQUIRE(run_until(io, [&] { return circ->hops() == 1 || circ->state() == net::ClientCircuit::State::Closed; }));
  REQUIRE(circ->hops() == 1);
  CHECK(circ->state() == net::ClientCircuit::State::Ready);
  return circ;
}

struct SentCell {
  CircId circ;
  cell::CellCommand cmd;
  std::vector<std::uint8_t> payload;
};

}  // namespace

TEST_CASE("a CREATE_FAST circuit over a real link carries a stream and extends", "[net][relay][create_fast]") {
  TwoRelays net;
  std::vector<std::uint8_t> reply(1200);
  for (std::size_t i = 0; i < reply.size(); ++i) reply[i] = static_cast<std::uint8_t>(i * 13);
  net.first.exit.reply = reply;
  net.second.exit.reply = reply;

  TestClient client(net.io, net.clock);
  client.connect(net.first, net.first.keys.identity());
  REQUIRE(run_until(net.io, [&] { return client.opened; }));

  auto circ = fast_circuit(net.io, client);
  CHECK(net.first.counters().circuits == 1);
  CHECK(open_stream(net.io, *circ, StreamId{1}, reply.size()) == reply);
  REQUIRE(net.first.exit.begins.size() == 1);

  // DATA toward the relay through the fast hop's forward keys.
  std::vector<std::uint8_t> upload(400, 0x61);
  REQUIRE(circ->send(HopNum{1}, StreamId{1}, cell::DataMsg{upload}));
  REQUIRE(run_until(net.io, [&] { return net.first.exit.received.size() >= upload.size(); }));
  CHECK(net.first.exit.received == upload);

  SECTION("EXTEND2 from the fast hop reaches a second relay") {
    auto second = fast_circuit(net.io, client);
    REQUIRE(second->extend(net.second.target()));
    REQUIRE(run_until(net.io, [&] { return second->hops() == 2 || second->state() == net::ClientCircuit::State::Closed; }));
    REQUIRE(second->hops() == 2);
    CHECK(open_stream(net.io, *second, StreamId{7}, reply.size()) == reply);
    CHECK(net.second.exit.begins.size() == 1);
  }

  SECTION("DESTROY frees the fast circuit at the relay") {
    circ->destroy(cell::DestroyReason::Finished);
    REQUIRE(run_until(net.io, [&] { return net.first.counters().circuits == 0; }));
    CHECK(net.first.exit.closed.size() == 1);
  }
}

TEST_CASE("a CREATED_FAST with a wrong KH closes the client circuit with DESTROY PROTOCOL", "[net][create_fast]") {
  std::vector<SentCell> sent;
  net::ClientCircuit circ(CircId{0x80000001u}, [&](CircId id, cell::CellCommand cmd, bytes::ByteSpan payload) {
    sent.push_back({id, cmd, {payload.begin(), payload.end()}});
    return true;
  });
  REQUIRE(circ.create_fast());
  REQUIRE(sent.size() == 1);
  REQUIRE(sent[0].cmd == cell::CellCommand::CreateFast);
  auto x = cell::decode_create_fast_cell(sent[0].payload);
  REQUIRE(x.has_value());

  // An honest reply for this X, with one bit of KH flipped.
  auto server = crypto::fast_server_handshake(x->x, crypto::RelayCryptoKeys::kMaterialLen);
  REQUIRE(server.has_value());
  cell::CreatedFastCell created{};
  std::copy_n(server->reply.begin(), 20, created.y.begin());
  std::copy_n(server->reply.begin() + 20, 20, created.kh.begin());
  const bool tamper = GENERATE(false, true);
  if (tamper) created.kh[19] ^= 0x80;
  auto body = cell::encode_created_fast_cell(created);
  body.resize(cell::kCellPayloadLen, 0);
  circ.on_cell(cell::CellView{CircId{0x80000001u}, cell::CellCommand::CreatedFast, body});

  if (!tamper) {
    CHECK(circ.state() == net::ClientCircuit::State::Ready);
    CHECK(circ.hops() == 1);
    CHECK_FALSE(circ.error().has_value());
    return;
  }
  CHECK(circ.state() == net::ClientCircuit::State::Closed);
  CHECK(circ.hops() == 0);
  CHECK(circ.error().has_value());
  REQUIRE(sent.size() == 2);
  CHECK(sent[1].cmd == cell::CellCommand::Destroy);
  CHECK(cell::decode_destroy_cell(sent[1].payload)->reason == cell::DestroyReason::Protocol);
}

TEST_CASE("a CREATED_FAST the client did not ask for closes the circuit", "[net][create_fast]") {
  std::vector<SentCell> sent;
  net::ClientCircuit circ(CircId{0x80000002u}, [&](CircId id, cell::CellCommand cmd, bytes::ByteSpan payload) {
    sent.push_back({id, cmd, {payload.begin(), payload.end()}});
    return true;
  });
  std::vector<std::uint8_t> body(cell::kCellPayloadLen, 0x11);
  circ.on_cell(cell::CellView{CircId{0x80000002u}, cell::CellCommand::CreatedFast, body});
  CHECK(circ.state() == net::ClientCircuit::State::Closed);
  REQUIRE(circ.error().has_value());
  REQUIRE_FALSE(sent.empty());
  CHECK(sent.back().cmd == cell::CellCommand::Destroy);
}
