#pragma once
// Shared by the exit module's tests: a fake circuit that records what the
// exit sends, a harness that runs the io_context until a condition holds,
// and real TCP servers on 127.0.0.1 (tests never connect anywhere else).
#include <catch2/catch.hpp>
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "conflux/exit/exit_streams.hpp"
#include "dns_test_server.hpp"
#include "conflux/net/asio.hpp"
#include "conflux/proto/exit_policy.hpp"

namespace conflux::test {

using namespace std::chrono_literals;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using net::awaitable;
using net::use_nothrow;

struct Sent {
  proto::CircuitHandle circuit;
  StreamId stream;
  cell::RelayMsg msg;
};

// The runtime's side of the seam. `data_credit` models the circuit package
// window: DATA cells it still accepts (nullopt: unlimited).
struct FakeCircuit final : proto::CircuitOutput {
  std::vector<Sent> sent;
  std::set<proto::CircuitHandle> gone;
  std::vector<std::pair<proto::CircuitHandle, cell::DestroyReason>> closes;
  std::optional<std::size_t> data_credit;
  bool refuse_cells = false;  // a live circuit that refuses what it is given (a runtime bug)
  std::set<proto::CircuitHandle> congestion_controlled;  // circuits that negotiated prop 324

  bool send_to_client(proto::CircuitHandle c, StreamId s, const cell::RelayMsg& msg) override {
    if (gone.count(c) != 0 || refuse_cells) return false;
    if (std::holds_alternative<cell::DataMsg>(msg)) {
      REQUIRE(can_send_data(c));  // the exit must ask first
      if (data_credit) --*data_credit;
    }
    sent.push_back({c, s, msg});
    return true;
  }
  [[nodiscard]] bool can_send_data(proto::CircuitHandle c) const override {
    return gone.count(c) == 0 && (!data_credit || *data_credit > 0);
  }
  [[nodiscard]] bool uses_congestion_control(proto::CircuitHandle c) const override {
    return congestion_controlled.count(c) != 0;
  }
  void close_circuit(proto::CircuitHandle c, cell::DestroyReason reason) override {
    gone.insert(c);
    closes.emplace_back(c, reason);
  }
  [[nodiscard]] std::optional<proto::ChannelId> client_channel(proto::CircuitHandle c) const override {
    if (gone.count(c) != 0) return std::nullopt;
    return proto::ChannelId{1};
  }

  template <class T>
  std::vector<T> of(proto::CircuitHandle c, StreamId s) const {
    std::vector<T> out;
    for (const auto& m : sent)
      if (m.circuit == c && m.stream == s)
        if (const T* t = std::get_if<T>(&m.msg)) out.push_back(*t);
    return out;
  }
  std::size_t count_for(proto::CircuitHandle c, StreamId s) const {
    std::size_t n = 0;
    for (const auto& m : sent) if (m.circuit == c && m.stream == s) ++n;
    return n;
  }
  std::string data_bytes(proto::CircuitHandle c, StreamId s) const {
    std::string out;
    for (const auto& d : of<cell::DataMsg>(c, s)) out.append(d.data.begin(), d.data.end());
    return out;
  }
};

inline proto::ExitPolicy policy_of(std::initializer_list<const char*> entries) {
  std::vector<proto::PolicyEntry> parsed;
  for (const char* e : entries) {
    auto p = proto::parse_policy_entry(e);
    REQUIRE(p);
    parsed.push_back(*p);
  }
  return proto::ExitPolicy::from_entries(parsed);
}

inline exit::ExitConfig exit_config(proto::ExitPolicy policy = policy_of({"accept *:*"})) {
  exit::ExitConfig cfg;
  cfg.mode = exit::ExitMode::Exit;
  cfg.policy = std::move(policy);
  cfg.ipv6_exit = true;
  cfg.timeouts.dns = 3s;
  cfg.timeouts.connect = 3s;
  cfg.timeouts.linger = 3s;
  return cfg;
}

// The exit's resolver asks `dns` unless the test named other servers.
inline exit::ExitConfig asking(exit::ExitConfig cfg, const DnsTestServer& dns) {
  if (cfg.dns.servers.empty()) cfg.dns.servers = {dns.server()};
  return cfg;
}

struct Harness {
  asio::io_context io;
  FakeCircuit out;
  DnsTestServer dns{io};  // the only nameserver exit tests talk to
  std::unique_ptr<exit::ExitStreams> exit;

  explicit Harness(exit::ExitConfig cfg = exit_config())
      : exit(std::make_unique<exit::ExitStreams>(io, out, asking(std::move(cfg), dns))) {}

  // Runs the io_context until pred() holds; false after `limit`.
  template <class Pred>
  bool run_until(Pred pred, std::chrono::milliseconds limit = 10s) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!pred()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      if (io.stopped()) io.restart();
      io.run_for(2ms);
    }
    return true;
  }
  // For "nothing more happens" checks: lets pending work run for a while.
  void settle(std::chrono::milliseconds d = 150ms) {
    if (io.stopped()) io.restart();
    io.run_for(d);
  }

  void begin(proto::CircuitHandle c, StreamId s, std::string host, std::uint16_t port, std::uint32_t flags = 0) {
    cell::BeginMsg m;
    m.kind = host.find(':') != std::string::npos ? cell::BeginAddrKind::Ipv6
             : (!host.empty() && host.find_first_not_of("0123456789.") == std::string::npos)
                 ? cell::BeginAddrKind::Ipv4
                                                                            : cell::BeginAddrKind::Hostname;
    m.host = std::move(host);
    m.port = port;
    m.flags = flags;
    exit->on_stream_message(c, s, m);
  }
  void data(proto::CircuitHandle c, StreamId s, std::string_view bytes) {
    exit->on_stream_message(c, s, cell::DataMsg{{bytes.begin(), bytes.end()}});
  }
  void end(proto::CircuitHandle c, StreamId s) { exit->on_stream_message(c, s, cell::EndMsg{}); }
  void resolve(proto::CircuitHandle c, StreamId s, std::string name) {
    exit->on_stream_message(c, s, cell::ResolveMsg{std::move(name)});
  }
  bool connected(proto::CircuitHandle c, StreamId s) const { return !out.of<cell::ConnectedMsg>(c, s).empty(); }
  std::optional<cell::EndMsg> end_of(proto::CircuitHandle c, StreamId s) const {
    auto ends = out.of<cell::EndMsg>(c, s);
    if (ends.empty()) return std::nullopt;
    return ends.front();
  }
};

inline const tcp::endpoint kLoopback4{asio::ip::make_address("127.0.0.1"), 0};

// Echoes what it reads; counts sessions, EOFs and what it received.
struct EchoServer {
  tcp::acceptor acceptor;
  int accepted = 0;
  int eofs = 0;
  int finished = 0;
  std::string received;

  explicit EchoServer(asio::io_context& io, tcp::endpoint where = kLoopback4) : acceptor(io, where) {
    asio::co_spawn(io, accept_loop(), asio::detached);
  }
  [[nodiscard]] std::uint16_t port() const { return acceptor.local_endpoint().port(); }

  awaitable<void> accept_loop() {
    for (;;) {
      auto [ec, sock] = co_await acceptor.async_accept(use_nothrow);
      if (ec) co_return;
      ++accepted;
      asio::co_spawn(acceptor.get_executor(), session(std::move(sock)), asio::detached);
    }
  }
  awaitable<void> session(tcp::socket sock) {
    std::array<char, 4096> buf{};
    for (;;) {
      auto [ec, n] = co_await sock.async_read_some(asio::buffer(buf), use_nothrow);
      if (ec) {
        if (ec == asio::error::eof) ++eofs;
        break;
      }
      received.append(buf.data(), n);
      auto [wec, wn] = co_await asio::async_write(sock, asio::buffer(buf.data(), n), use_nothrow);
      if (wec) break;
    }
    ++finished;
  }
};

// Sends `payload` to whoever connects, then closes.
struct PayloadServer {
  tcp::acceptor acceptor;
  std::string payload;
  bool done = false;

  PayloadServer(asio::io_context& io, std::string data) : acceptor(io, kLoopback4), payload(std::move(data)) {
    asio::co_spawn(io, serve(), asio::detached);
  }
  [[nodiscard]] std::uint16_t port() const { return acceptor.local_endpoint().port(); }

  awaitable<void> serve() {
    auto [ec, sock] = co_await acceptor.async_accept(use_nothrow);
    if (ec) co_return;
    auto [wec, n] = co_await asio::async_write(sock, asio::buffer(payload), use_nothrow);
    boost::system::error_code ignored;
    sock.shutdown(tcp::socket::shutdown_send, ignored);
    sock.close(ignored);
    done = !wec;
  }
};

// A port on 127.0.0.1 nobody listens on (bound, then released).
inline std::uint16_t closed_port(asio::io_context& io) {
  tcp::acceptor a(io, kLoopback4);
  const std::uint16_t port = a.local_endpoint().port();
  a.close();
  return port;
}

inline std::string pattern_bytes(std::size_t n) {
  std::string s(n, '\0');
  std::uint32_t x = 0x12345678;
  for (auto& c : s) {
    x = x * 1664525u + 1013904223u;
    c = static_cast<char>(x >> 24);
  }
  return s;
}

}  // namespace conflux::test
