#pragma once
// The client side of the integration test with real processes: a client
// link with its circuits, circuit building, an HTTP download over one stream
// (with the client StreamMachine's stream-level SENDMEs), and a raw peer for
// sending an ORPort what no well-behaved peer would.
#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/cell/channel_cell.hpp"
#include "conflux/cell/relay_msg.hpp"
#include "conflux/cell/versions_cell.hpp"
#include "conflux/net/channel.hpp"
#include "conflux/net/client_circuit.hpp"
#include "conflux/net/client_link.hpp"
#include "conflux/net/scheduler.hpp"
#include "conflux/net/tls.hpp"
#include "conflux/proto/stream_state.hpp"
#include "test_net_processes_support.hpp"

namespace conflux::test::procs {

// Runs the loop for `d` (a bounded pause that keeps everything serviced).
inline void idle_for(asio::io_context& io, std::chrono::milliseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  (void)run_until(io, [&] { return std::chrono::steady_clock::now() >= until; }, d + 1s);
}

// Runs `a` on the loop; its result, or nullopt if `bound` passed first.
template <class T>
std::optional<T> await_in(asio::io_context& io, net::awaitable<T> a, std::chrono::milliseconds bound) {
  auto slot = std::make_shared<std::optional<T>>();
  asio::co_spawn(
      io,
      [](net::awaitable<T> inner, std::shared_ptr<std::optional<T>> out) -> net::awaitable<void> {
        out->emplace(co_await std::move(inner));
      }(std::move(a), slot),
      asio::detached);
  if (!run_until(io, [&] { return slot->has_value(); }, bound)) return std::nullopt;
  return std::move(*slot);
}

// A client with one link to its first hop and any number of circuits on it.
class Client {
 public:
  Client(asio::io_context& io, const net::Clock& clock, net::ClientLink::Options options = {})
      : scheduler_(io, clock, nullptr) {
    net::ClientLink::Callbacks cb;
    cb.on_open = [this] { opened_ = true; };
    cb.on_cell = [this](const cell::CellView& c) {
      if (auto it = circuits_.find(c.circ_id.value()); it != circuits_.end()) it->second->on_cell(c);
    };
    cb.on_closed = [this](std::string_view why) { closed_ = std::string(why); };
    link_ = std::make_unique<net::ClientLink>(io, tls_, scheduler_, clock, std::move(cb), std::move(options));
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  void connect(const net::tcp::endpoint& to, const crypto::Ed25519Public& identity) { link_->connect({to}, identity); }
  [[nodiscard]] bool opened() const noexcept { return opened_; }
  [[nodiscard]] const std::optional<std::string>& closed() const noexcept { return closed_; }
  [[nodiscard]] net::ClientLink& link() noexcept { return *link_; }

  net::ClientCircuit& new_circuit(proto::ClientCircuitConfig config = {}) {
    auto id = link_->allocate_circ_id();
    REQUIRE(id.has_value());
    auto c = std::make_unique<net::ClientCircuit>(
        *id, [this](CircId circ, cell::CellCommand cmd, bytes::ByteSpan p) { return link_->send(circ, cmd, p); },
        net::ClientCircuit::kDefaultMaxInbox, std::move(config));
    auto& ref = *c;
    circuits_[id->value()] = std::move(c);
    return ref;
  }

 private:
  asio::ssl::context tls_ = net::make_tls_client_context();
  net::Scheduler scheduler_;
  std::map<std::uint32_t, std::unique_ptr<net::ClientCircuit>> circuits_;
  std::unique_ptr<net::ClientLink> link_;
  bool opened_ = false;
  std::optional<std::string> closed_;
};

// Builds a circuit hop by hop through `path` (path[0] is the client's link),
// asking the last hop for what `last` says.
inline net::ClientCircuit& build_circuit(asio::io_context& io, Client& client, const std::vector<net::HopTarget>& path,
                                         proto::ClientCircuitConfig config = {}, proto::HopOptions last = {}) {
  auto& circ = client.new_circuit(std::move(config));
  for (std::size_t i = 0; i < path.size(); ++i) {
    const proto::HopOptions options = i + 1 == path.size() ? last : proto::HopOptions{};
    REQUIRE((i == 0 ? circ.create(path[0], options) : circ.extend(path[i], options)));
    REQUIRE(run_until(io, [&] { return circ.hops() == i + 1 || circ.state() == net::ClientCircuit::State::Closed; },
                      15s));
    INFO("hop " << i + 1 << (circ.destroyed() ? " destroyed" : "") << (circ.error() ? *circ.error() : ""));
    REQUIRE(circ.hops() == i + 1);
  }
  return circ;
}

// One stream to the last hop: BEGIN, then an HTTP GET once CONNECTED, the
// response kept whole; stream-level SENDMEs (500/50) from the client's
// StreamMachine, none on a circuit with congestion control. Circuit-level
// SENDMEs are the ClientCircuit's.
class HttpFetch {
 public:
  HttpFetch(net::ClientCircuit& circ, StreamId stream, std::string path)
      : circ_(circ),
        hop_{static_cast<std::uint8_t>(circ.hops())},
        stream_(stream),
        path_(std::move(path)),
        machine_(proto::StreamMachine::client_stream(
            proto::StreamKind::Connect,
            proto::StreamMachine::Options{!circ.machine().congestion_control().has_value()})) {}

  bool begin(std::uint16_t port) {
    return circ_.send(hop_, stream_, cell::BeginMsg{"127.0.0.1", cell::BeginAddrKind::Ipv4, port, 0});
  }

  // Handles what the circuit received for this stream.
  void pump() {
    auto& inbox = circ_.inbox();
    while (!inbox.empty()) {
      auto m = std::move(inbox.front());
      inbox.pop_front();
      if (m.hop != hop_ || m.stream != stream_) {
        fail("a message from another hop or stream");
        continue;
      }
      handle(m.msg);
    }
  }

  [[nodiscard]] bool connected() const noexcept { return connected_; }
  [[nodiscard]] const std::optional<cell::EndReason>& end() const noexcept { return end_; }
  [[nodiscard]] const std::optional<std::string>& error() const noexcept { return error_; }
  [[nodiscard]] std::size_t received() const noexcept { return raw_.size(); }
  [[nodiscard]] std::uint64_t sendmes_sent() const noexcept { return sendmes_; }
  // Everything after the header, once the header arrived.
  [[nodiscard]] std::optional<bytes::ByteSpan> body() const {
    auto at = header_end();
    if (!at) return std::nullopt;
    return bytes::ByteSpan(raw_).subspan(*at);
  }
  [[nodiscard]] std::string status_line() const {
    const std::string s(raw_.begin(), raw_.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(raw_.size(), 64)));
    return s.substr(0, s.find("\r\n"));
  }
  // The whole body arrived (Content-Length bytes).
  [[nodiscard]] bool complete() const {
    auto b = body();
    auto len = content_length();
    return b && len && b->size() >= *len;
  }
  [[nodiscard]] bool finished() const { return complete() || end_ || error_ || circ_.destroyed() || circ_.error(); }
  [[nodiscard]] std::optional<std::size_t> content_length() const {
    auto at = header_end();
    if (!at) return std::nullopt;
    const std::string head(raw_.begin(), raw_.begin() + static_cast<std::ptrdiff_t>(*at));
    static const std::regex cl(R"(Content-Length: (\d+))");
    std::smatch m;
    if (!std::regex_search(head, m, cl)) return std::nullopt;
    return static_cast<std::size_t>(std::stoull(m[1]));
  }

 private:
  void fail(std::string why) {
    if (!error_) error_ = std::move(why);
  }
  [[nodiscard]] std::optional<std::size_t> header_end() const {
    static constexpr std::string_view kEnd = "\r\n\r\n";
    auto it = std::search(raw_.begin(), raw_.end(), kEnd.begin(), kEnd.end());
    if (it == raw_.end()) return std::nullopt;
    return static_cast<std::size_t>(it - raw_.begin()) + kEnd.size();
  }

  void handle(const cell::RelayMsg& msg) {
    proto::StreamActions a;
    if (std::holds_alternative<cell::ConnectedMsg>(msg)) {
      a = machine_.on_connected();
    } else if (auto* d = std::get_if<cell::DataMsg>(&msg)) {
      a = machine_.on_data();
      if (a.deliver_data) raw_.insert(raw_.end(), d->data.begin(), d->data.end());
    } else if (auto* e = std::get_if<cell::EndMsg>(&msg)) {
      a = machine_.on_end(e->reason);
      end_ = e->reason;
    } else if (std::holds_alternative<cell::SendmeMsg>(msg)) {
      a = machine_.on_sendme();
    } else {
      a = machine_.on_other(cell::command_of(msg));
    }
    if (a.violation) fail(std::string("stream violation: ") + proto::to_string(*a.violation));
    if (a.send_sendme) {
      if (!circ_.send(hop_, stream_, cell::SendmeMsg{})) fail("could not send a stream SENDME");
      ++sendmes_;
    }
    if (a.opened) {
      connected_ = true;
      const std::string get = "GET " + path_ + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
      if (!machine_.data_sent()) fail("stream window closed for the request");
      if (!circ_.send(hop_, stream_, cell::DataMsg{{get.begin(), get.end()}})) fail("could not send the request");
    }
  }

  net::ClientCircuit& circ_;
  HopNum hop_;
  StreamId stream_;
  std::string path_;
  proto::StreamMachine machine_;
  std::vector<std::uint8_t> raw_;
  bool connected_ = false;
  std::optional<cell::EndReason> end_;
  std::optional<std::string> error_;
  std::uint64_t sendmes_ = 0;
};

// A channel to an ORPort for sending what no well-behaved peer would. It
// frames the relay's answers correctly so that only the relay decides to close.
struct RawPeer : net::Channel::Events {
  asio::ssl::context tls = net::make_tls_client_context();
  net::Scheduler scheduler;
  std::shared_ptr<net::Channel> channel;
  bool tls_ready = false;
  std::optional<std::string> closed;

  RawPeer(asio::io_context& io, const net::Clock& clock, const net::tcp::endpoint& to)
      : scheduler(io, clock, nullptr) {
    net::tcp::socket s(io);
    s.connect(to);
    channel = std::make_shared<net::Channel>(net::TlsStream(std::move(s), tls), net::Channel::Role::Initiator,
                                             scheduler, *this, net::Channel::Limits{});
    asio::co_spawn(io, channel->run(), asio::detached);
  }
  ~RawPeer() override { channel->close("test over"); }
  RawPeer(const RawPeer&) = delete;
  RawPeer& operator=(const RawPeer&) = delete;
  void on_tls_ready(net::Channel&) override { tls_ready = true; }
  void on_cell(net::Channel& ch, const cell::CellView& c) override {
    if (c.command == cell::CellCommand::Versions) ch.set_link_version(5);
  }
  void on_closed(net::Channel&, std::string_view reason) override { closed = std::string(reason); }
  void send(const std::vector<std::uint8_t>& bytes) {
    REQUIRE(channel->mux().push_control(bytes) == proto::MuxPush::Queued);
    channel->cells_queued();
  }
};

// Not TLS at all: the relay must hang up.
inline net::awaitable<void> send_junk(net::tcp::endpoint to, std::shared_ptr<bool> hung_up) {
  net::tcp::socket s(co_await asio::this_coro::executor);
  auto [cec] = co_await s.async_connect(to, net::use_nothrow);
  if (cec) co_return;
  const std::string junk = "GET / HTTP/1.0\r\n\r\n" + std::string(600, '\xff');
  (void)co_await asio::async_write(s, asio::buffer(junk), net::use_nothrow);
  std::array<char, 512> buf{};
  for (;;) {
    auto [ec, n] = co_await s.async_read_some(asio::buffer(buf), net::use_nothrow);
    if (ec) break;
  }
  *hung_up = true;
}

inline std::vector<std::uint8_t> versions_cell_bytes() {
  auto versions = std::move(cell::encode_versions_cell(cell::VersionsCell{{4, 5}})).value();
  return std::move(cell::encode_cell(0, CircId{0}, cell::CellCommand::Versions, versions)).value();
}

}  // namespace conflux::test::procs
