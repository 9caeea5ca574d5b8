#pragma once
// A client with a link to one relay and CREATE_FAST circuits on it, each with
// that relay as its only hop (and so as its exit): the set-up of the tests
// that speak to an exit directly, whether it runs as a process
// (test_net_processes_reload_exit) or in the test's own (test_net_relay_dos).
#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>

#include "conflux/net/client_circuit.hpp"
#include "conflux/net/client_link.hpp"
#include "conflux/net/scheduler.hpp"
#include "conflux/net/tls.hpp"

namespace conflux::test {

class OneHopClient {
 public:
  // Every wait here is bounded by this: generous for an ASan build on a busy machine.
  static constexpr std::chrono::milliseconds kWait{20'000};

  // Connects to `relay` (expecting `identity`) and builds the first circuit;
  // the link and that circuit's hop are REQUIREd.
  OneHopClient(boost::asio::io_context& io, const net::Clock& clock, const net::tcp::endpoint& relay,
               const crypto::Ed25519Public& identity)
      : io_(io), scheduler_(io, clock, nullptr) {
    net::ClientLink::Callbacks cb;
    cb.on_open = [this] { opened_ = true; };
    cb.on_cell = [this](const cell::CellView& c) {
      if (auto it = circuits_.find(c.circ_id.value()); it != circuits_.end()) it->second->on_cell(c);
    };
    link_ = std::make_unique<net::ClientLink>(io, tls_, scheduler_, clock, std::move(cb), net::ClientLink::Options{});
    link_->connect({relay}, identity);
    REQUIRE(wait([this] { return opened_; }));
    first_ = &fast_circuit();
    REQUIRE(first_->hops() == 1);
  }
  OneHopClient(const OneHopClient&) = delete;
  OneHopClient& operator=(const OneHopClient&) = delete;

  // The circuit the constructor built.
  [[nodiscard]] net::ClientCircuit& circuit() noexcept { return *first_; }
  [[nodiscard]] net::ClientLink& link() noexcept { return *link_; }

  // Another circuit on the same link, once it has its hop or was refused
  // (then hops() is 0 and destroyed() says why).
  net::ClientCircuit& fast_circuit() {
    auto id = link_->allocate_circ_id();
    REQUIRE(id.has_value());
    auto owned = std::make_unique<net::ClientCircuit>(
        *id, [this](CircId circ, cell::CellCommand cmd, bytes::ByteSpan payload) {
          return link_->send(circ, cmd, payload);
        });
    auto& circ = *owned;
    circuits_[id->value()] = std::move(owned);
    REQUIRE(circ.create_fast());
    REQUIRE(wait([&] { return circ.hops() == 1 || circ.state() == net::ClientCircuit::State::Closed; }));
    return circ;
  }

 private:
  bool wait(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      if (io_.stopped()) io_.restart();
      io_.run_one_for(std::chrono::milliseconds(20));
    }
    return true;
  }

  boost::asio::io_context& io_;
  boost::asio::ssl::context tls_ = net::make_tls_client_context();
  net::Scheduler scheduler_;
  std::map<std::uint32_t, std::unique_ptr<net::ClientCircuit>> circuits_;
  std::unique_ptr<net::ClientLink> link_;
  net::ClientCircuit* first_ = nullptr;
  bool opened_ = false;
};

}  // namespace conflux::test
