#pragma once
// A network in one process for the relay runtime tests: relays
// (ChannelManager with real keys and TLS on 127.0.0.1 ephemeral ports), a
// test exit handler, clients with a ClientLink and ClientCircuits, and a
// loop driver that runs the io_context until a condition holds (never a
// fixed sleep).
#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "conflux/keys/relay_keys.hpp"
#include "conflux/net/channel_manager.hpp"
#include "conflux/net/client_circuit.hpp"
#include "conflux/net/client_link.hpp"
#include "conflux/net/tls.hpp"

namespace conflux::test {

using namespace std::chrono_literals;

inline std::uint64_t unix_now() { return net::SystemClock{}.unix_seconds(); }

// Runs the loop until `done()` or the (generous) limit; true if done.
inline bool run_until(boost::asio::io_context& io, const std::function<bool()>& done,
                      std::chrono::milliseconds limit = 20s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    if (io.stopped()) io.restart();
    io.run_one_for(20ms);
  }
  return true;
}

// Records what the runtime delivers; on BEGIN answers CONNECTED and then
// `reply` in DATA cells of at most 498 bytes.
struct TestExit : proto::ExitHandler {
  proto::CircuitOutput* out = nullptr;
  std::vector<std::pair<proto::CircuitHandle, StreamId>> begins;
  std::vector<std::uint8_t> received;  // DATA bytes from clients
  std::map<proto::CircuitHandle, cell::DestroyReason> closed;
  std::vector<std::uint8_t> reply;

  void on_stream_message(proto::CircuitHandle circuit, StreamId stream, cell::RelayMsg msg) override {
    if (std::holds_alternative<cell::BeginMsg>(msg)) {
      begins.emplace_back(circuit, stream);
      REQUIRE(out->send_to_client(circuit, stream, cell::ConnectedMsg{}));
      for (std::size_t at = 0; at < reply.size(); at += 498) {
        const auto end = std::min(reply.size(), at + 498);
        REQUIRE(out->send_to_client(circuit, stream,
                                    cell::DataMsg{{reply.begin() + static_cast<std::ptrdiff_t>(at),
                                                   reply.begin() + static_cast<std::ptrdiff_t>(end)}}));
      }
    } else if (auto* d = std::get_if<cell::DataMsg>(&msg)) {
      received.insert(received.end(), d->data.begin(), d->data.end());
    }
  }
  void on_circuit_writable(proto::CircuitHandle) override {}
  void on_circuit_closed(proto::CircuitHandle circuit, cell::DestroyReason reason) override {
    closed[circuit] = reason;
  }
};

struct TestRelay {
  keys::RelayKeys keys = keys::RelayKeys::generate(unix_now());
  TestExit exit;
  std::unique_ptr<net::ChannelManager> manager;
  net::tcp::endpoint endpoint;

  TestRelay(boost::asio::io_context& io, const net::Clock& clock, net::ChannelManagerConfig config) {
    manager = std::make_unique<net::ChannelManager>(io, clock, keys, &exit, std::move(config));
    exit.out = manager.get();
    boost::system::error_code ec;
    auto bound = manager->listen(net::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0), ec);
    REQUIRE(bound.has_value());
    endpoint = *bound;
  }

  [[nodiscard]] net::HopTarget target() const {
    return {keys.identity(), keys.onion_key().key.public_key(),
            {cell::LinkSpecIpv4{endpoint.address().to_v4().to_bytes(), endpoint.port()}}};
  }
  [[nodiscard]] net::RuntimeCounters counters() const { return manager->counters(); }
};

struct TestClient {
  boost::asio::ssl::context tls = net::make_tls_client_context();
  net::Scheduler scheduler;
  std::map<std::uint32_t, net::ClientCircuit*> circuits;
  std::unique_ptr<net::ClientLink> link;
  bool opened = false;

  TestClient(boost::asio::io_context& io, const net::Clock& clock) : scheduler(io, clock, nullptr) {
    net::ClientLink::Callbacks cb;
    cb.on_open = [this] { opened = true; };
    cb.on_cell = [this](const cell::CellView& c) {
      if (auto it = circuits.find(c.circ_id.value()); it != circuits.end()) it->second->on_cell(c);
    };
    link = std::make_unique<net::ClientLink>(io, tls, scheduler, clock, std::move(cb), net::ClientLink::Options{});
  }

  void connect(const TestRelay& relay, const crypto::Ed25519Public& expected) {
    link->connect({relay.endpoint}, expected);
  }

  std::unique_ptr<net::ClientCircuit> new_circuit() {
    auto id = link->allocate_circ_id();
    REQUIRE(id.has_value());
    auto c = std::make_unique<net::ClientCircuit>(
        *id, [this](CircId circ, cell::CellCommand cmd, bytes::ByteSpan payload) {
          return link->send(circ, cmd, payload);
        });
    circuits[id->value()] = c.get();
    return c;
  }
};

// Builds a circuit through `path` (the client's link goes to path[0]).
inline std::unique_ptr<net::ClientCircuit> build_circuit(boost::asio::io_context& io, TestClient& client,
                                                         const std::vector<TestRelay*>& path) {
  auto circ = client.new_circuit();
  REQUIRE(circ->create(path[0]->target()));
  REQUIRE(run_until(io, [&] { return circ->hops() == 1 || circ->state() == net::ClientCircuit::State::Closed; }));
  REQUIRE(circ->hops() == 1);
  for (std::size_t i = 1; i < path.size(); ++i) {
    REQUIRE(circ->extend(path[i]->target()));
    REQUIRE(run_until(io, [&] { return circ->hops() == i + 1 || circ->state() == net::ClientCircuit::State::Closed; }));
    REQUIRE(circ->hops() == i + 1);
  }
  return circ;
}

// A BEGIN to the last hop; returns the bytes of the DATA cells that come
// back (after CONNECTED), waiting for `expect` bytes.
inline std::vector<std::uint8_t> open_stream(boost::asio::io_context& io, net::ClientCircuit& circ, StreamId stream,
                                             std::size_t expect) {
  const HopNum last{static_cast<std::uint8_t>(circ.hops())};
  REQUIRE(circ.send(last, stream, cell::BeginMsg{"example.com", cell::BeginAddrKind::Hostname, 80, 0}));
  std::vector<std::uint8_t> got;
  bool connected = false;
  REQUIRE(run_until(io, [&] {
    while (!circ.inbox().empty()) {
      auto m = std::move(circ.inbox().front());
      circ.inbox().pop_front();
      CHECK(m.hop == last);
      CHECK(m.stream == stream);
      if (std::holds_alternative<cell::ConnectedMsg>(m.msg)) connected = true;
      if (auto* d = std::get_if<cell::DataMsg>(&m.msg)) got.insert(got.end(), d->data.begin(), d->data.end());
    }
    return connected && got.size() >= expect;
  }));
  return got;
}

}  // namespace conflux::test
