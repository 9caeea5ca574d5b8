// The exit's Conflux join point in a real conflux-relay process on
// 127.0.0.1: a client (ClientLink + ClientCircuit, a proto::ConfluxSet and
// a ClientLinker) builds two one-hop circuits with CREATE2, links them
// (LINK / LINKED / LINKED_ACK), opens a stream to a local HTTP server and
// gets the file back in order over both legs. Then hostile sets (duplicated
// numbers, SWITCH abuse, an unbounded gap) are closed by the relay while the
// first set keeps working, and the MetricsPort shows the reorder memory
// within its cap throughout. A second test kills a leg mid-download and
// relinks the surviving one: the relay resends on it what the dead leg had
// not delivered, and the file arrives whole. A third downloads over a
// circuit with congestion control and reads its Vegas state from the
// MetricsPort.
#include <cstdio>

#include "conflux/crypto/random.hpp"
#include "conflux/keys/relay_keys.hpp"
#include "conflux/proto/conflux_linking.hpp"
#include "conflux/proto/conflux_set.hpp"
#include "test_net_processes_client.hpp"
#include "test_net_processes_support.hpp"

#ifndef CONFLUX_RELAY_BINARY
#error "CONFLUX_RELAY_BINARY must name the conflux-relay program (tests/CMakeLists.txt)"
#endif

using namespace conflux;
using namespace conflux::test::procs;

namespace {

constexpr std::size_t kFileSize = 2 * 1024 * 1024;
constexpr HopNum kExitHop{1};

net::awaitable<std::string> http_get(net::tcp::endpoint to, std::string request) {
  net::tcp::socket s(co_await asio::this_coro::executor);
  auto [cec] = co_await s.async_connect(to, net::use_nothrow);
  if (cec) co_return "connect failed";
  (void)co_await asio::async_write(s, asio::buffer(request), net::use_nothrow);
  std::string out;
  std::array<char, 4096> buf{};
  while (out.size() < (1U << 20)) {
    auto [ec, n] = co_await s.async_read_some(asio::buffer(buf), net::use_nothrow);
    if (ec) break;
    out.append(buf.data(), n);
  }
  co_return out;
}

// The value of one sample line ("name{labels} value"), if present.
std::optional<double> sample(const std::string& body, const std::string& series) {
  const auto at = body.find("\n" + series + " ");
  if (at == std::string::npos) return std::nullopt;
  const auto start = at + series.size() + 2;
  return std::stod(body.substr(start, body.find('\n', start) - start));
}

// One exit relay process with a MetricsPort, and the HTTP server it may reach.
struct Exit {
  TempDir tmp;
  net::SystemClock clock;
  asio::io_context io;
  std::vector<std::uint8_t> file = std::vector<std::uint8_t>(kFileSize);
  std::unique_ptr<HttpServer> http;
  net::HopTarget target;
  std::uint16_t metrics_port = 0;
  std::unique_ptr<Child> proc;
  fs::path log_path = tmp.path() / "exit.log";

  Exit() {
    crypto::random_bytes(file);
    http = std::make_unique<HttpServer>(io, file);
    auto k = keys::load_or_create_relay_keys(tmp.path() / "data", clock.unix_seconds());
    REQUIRE(k.has_value());
    target.identity = k->identity();
    target.onion_key = k->onion_key().key.public_key();
    start_relay_retrying(*this);
  }
  ~Exit() {
    print_report_if_failing([this] { return report(); });
    proc.reset();
  }

  bool start() {
    const auto ports = free_ports(io, 2);
    target.link_specs = {cell::LinkSpecIpv4{{127, 0, 0, 1}, ports[0]}};
    metrics_port = ports[1];
    const auto torrc = tmp.path() / "exit.torrc";
    write_text(torrc, "Nickname exit\nDataDirectory " + (tmp.path() / "data").string() + "\nORPort 127.0.0.1:" +
                          std::to_string(ports[0]) + "\nMetricsPort " + std::to_string(metrics_port) +
                          "\nExitRelay 1\nExitPolicyRejectPrivate 0\nExitPolicy accept 127.0.0.1:" +
                          std::to_string(http->port()) + "\nExitPolicy reject *:*\nLog notice file " +
                          log_path.string() + "\nTestingTorNetwork 1\n");
    std::error_code ignored;
    fs::remove(log_path, ignored);
    proc = std::make_unique<Child>("exit", CONFLUX_RELAY_BINARY, std::vector<std::string>{"-f", torrc.string()},
                                   tmp.path() / "exit.out");
    proc->start();
    auto up = [&] { return read_text(log_path).find(" is up as ") != std::string::npos; };
    (void)run_until(io, [&] { return up() || !proc->running(); }, 30s);
    return proc->running() && up();
  }
  [[nodiscard]] std::string report() const {
    return "---- exit log ----\n" + read_text(log_path) + "---- stdout/stderr ----\n" +
           (proc ? proc->output_text() : std::string());
  }
  [[nodiscard]] net::tcp::endpoint or_endpoint() const {
    const auto& v4 = std::get<cell::LinkSpecIpv4>(target.link_specs[0]);
    return {kLoopback, v4.port};
  }
  std::string scrape() {
    auto r = await_in(io, http_get({kLoopback, metrics_port}, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"), 10s);
    REQUIRE(r.has_value());
    REQUIRE(r->rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
    return "\n" + r->substr(r->find("\r\n\r\n") + 4);
  }
  double metric(const std::string& series) {
    const auto v = sample(scrape(), series);
    INFO(series);
    REQUIRE(v.has_value());
    return *v;
  }
};

net::ClientCircuit& one_hop(Exit& x, Client& client) {
  auto& c = client.new_circuit();
  REQUIRE(c.create(x.target));
  REQUIRE(run_until(x.io, [&] { return c.hops() == 1 || c.state() == net::ClientCircuit::State::Closed; }, 10s));
  REQUIRE(c.hops() == 1);
  return c;
}

// A GET over one stream of a set, answered through the set.
struct SetStream {
  StreamId id;
  std::string path;
  proto::StreamMachine machine = proto::StreamMachine::client_stream(proto::StreamKind::Connect);
  std::vector<std::uint8_t> raw;
  bool connected = false;
  std::optional<cell::EndReason> end;
  std::optional<std::string> error;

  [[nodiscard]] std::optional<std::size_t> header_end() const {
    static constexpr std::string_view kEnd = "\r\n\r\n";
    auto it = std::search(raw.begin(), raw.end(), kEnd.begin(), kEnd.end());
    if (it == raw.end()) return std::nullopt;
    return static_cast<std::size_t>(it - raw.begin()) + kEnd.size();
  }
  [[nodiscard]] std::optional<bytes::ByteSpan> body() const {
    auto at = header_end();
    if (!at) return std::nullopt;
    return bytes::ByteSpan(raw).subspan(*at);
  }
};

// The client's side of one set: its legs (one-hop circuits to the exit),
// its ConfluxSet (which numbers what we send and reorders what we get) and
// its streams.
class ClientSet {
 public:
  ClientSet(Exit& x, cell::ConfluxUx ux) : x_(x), ux_(ux), set_(proto::SetId{1}, budget_), linker_(fresh_nonce()) {}

  void add_leg(net::ClientCircuit& c) { legs_.push_back(&c); }

  void link() {
    for (auto* c : legs_) {
      const auto ours = set_.advertise();
      ours_[leg(*c)] = ours;
      auto lk = linker_.start_leg(leg(*c), ours, ux_, x_.clock.now());
      REQUIRE(lk);
      REQUIRE(c->send(kExitHop, StreamId{0}, *lk));
    }
    REQUIRE(run_until(x_.io, [&] {
      pump();
      return linked_ == legs_.size() || failed();
    }, 10s));
    REQUIRE_FALSE(failed());
  }

  SetStream& open(StreamId id, std::string path) {
    auto& s = streams_[id.value()];
    s.id = id;
    s.path = std::move(path);
    send(id, cell::BeginMsg{"127.0.0.1", cell::BeginAddrKind::Ipv4, x_.http->port(), 0});
    return s;
  }

  // Handles everything the legs received.
  void pump() {
    for (auto* c : legs_) {
      auto& inbox = c->inbox();
      while (!inbox.empty()) {
        auto m = std::move(inbox.front());
        inbox.pop_front();
        on_message(*c, m);
      }
    }
  }

  [[nodiscard]] bool failed() const {
    if (error_) return true;
    for (auto* c : legs_)
      if (c->destroyed() || c->error()) return true;
    return false;
  }
  [[nodiscard]] std::string why() const {
    std::string out = error_.value_or("");
    for (auto* c : legs_) {
      if (c->destroyed()) out += " leg destroyed: " + std::to_string(static_cast<int>(*c->destroyed()));
      if (c->error()) out += " leg error: " + *c->error();
    }
    return out;
  }
  [[nodiscard]] const std::map<std::uint32_t, std::size_t>& data_per_leg() const { return data_per_leg_; }
  [[nodiscard]] const std::vector<net::ClientCircuit*>& legs() const { return legs_; }
  [[nodiscard]] net::ClientCircuit* latest_data_leg() const { return latest_data_; }

  // `victim` dies (we destroy it, as a relay on its path would); the
  // surviving `leg` is relinked: LINK again on it, then the LINKED.
  void kill_and_relink(net::ClientCircuit& victim, net::ClientCircuit& survivor) {
    pump();
    victim.destroy(cell::DestroyReason::Finished);
    set_.leg_closed(leg(victim));
    std::erase(legs_, &victim);
    if (latest_data_ == &victim) latest_data_ = nullptr;
    const auto ours = set_.advertise();
    ours_[leg(survivor)] = ours;
    REQUIRE(set_.begin_relink(leg(survivor)));
    auto lk = linker_.start_relink(leg(survivor), ours, ux_, x_.clock.now());
    REQUIRE(lk);
    REQUIRE(survivor.send(kExitHop, StreamId{0}, *lk));
  }
  [[nodiscard]] std::uint64_t switches_received() const { return set_.stats().switches_received; }

 private:
  static proto::ConfluxNonce fresh_nonce() {
    proto::ConfluxNonce n;
    crypto::random_bytes(n);
    return n;
  }
  static proto::LegId leg(const net::ClientCircuit& c) { return proto::LegId{c.id().value()}; }

  net::ClientCircuit* circuit_of(proto::LegId id) {
    for (auto* c : legs_)
      if (leg(*c) == id) return c;
    return nullptr;
  }

  void send(StreamId stream, const cell::RelayMsg& msg) {
    auto cells = set_.send(stream, msg, x_.clock.now());
    if (!cells) return fail(std::string("set refused a message: ") + std::string(proto::to_string(cells.error())));
    send_cells(*cells);
  }
  void send_cells(const std::vector<proto::LegCell>& cells) {
    for (const auto& lc : cells) {
      auto* c = circuit_of(lc.leg);
      if (c == nullptr || !c->send(kExitHop, lc.stream, lc.msg)) fail("a leg refused a cell");
    }
  }

  void fail(std::string why) {
    if (!error_) error_ = std::move(why);
  }

  void on_message(net::ClientCircuit& c, const net::ReceivedMsg& m) {
    if (m.hop != kExitHop) return fail("a message from another hop");
    if (const auto* linked = std::get_if<cell::ConfluxLinkedMsg>(&m.msg)) {
      auto r = linker_.on_linked(leg(c), *linked, x_.clock.now());
      if (!r) return fail("LINKED refused: " + std::string(proto::to_string(r.error())));
      const auto rtt = std::chrono::duration_cast<proto::RttDuration>(r->rtt);
      const bool relink = set_.relinking(leg(c));
      auto added = relink ? set_.relink_leg(leg(c), ours_[leg(c)], r->peer, rtt, x_.clock.now())
                          : set_.add_leg(leg(c), ours_[leg(c)], r->peer, rtt, x_.clock.now());
      if (!added) return fail("add_leg: " + std::string(proto::to_string(added.error())));
      if (!c.send(kExitHop, StreamId{0}, r->ack)) fail("LINKED_ACK not sent");
      if (!relink) ++linked_;
      return send_cells(set_.flush(x_.clock.now()));
    }
    if (const auto* sw = std::get_if<cell::ConfluxSwitchMsg>(&m.msg)) {
      if (auto r = set_.on_switch(leg(c), *sw); !r) fail("SWITCH: " + std::string(proto::to_string(r.error())));
      return;
    }
    if (auto route = proto::route_leg_cell(cell::command_of(m.msg), m.stream);
        !route || *route != proto::LegCellRoute::Sequenced) {
      if (std::holds_alternative<cell::SendmeMsg>(m.msg) && m.stream == StreamId{0}) {
        // A circuit SENDME the ClientCircuit accepted: the leg's window and RTT.
        if (auto r = set_.on_leg_sendme(leg(c), x_.clock.now()); !r) fail("leg SENDME refused");
        return send_cells(set_.flush(x_.clock.now()));
      }
      if (std::holds_alternative<cell::SendmeMsg>(m.msg)) return handle(m.stream, m.msg);
      return fail("an unexpected leg-local message");
    }
    if (std::holds_alternative<cell::DataMsg>(m.msg)) {
      ++data_per_leg_[c.id().value()];
      latest_data_ = &c;
    }
    auto r = set_.on_cell(leg(c), m.stream, m.msg, x_.clock.now());
    if (!r) return fail("cell: " + std::string(proto::to_string(r.error())));
    for (auto& d : *r) handle(d.stream, d.msg);
  }

  void handle(StreamId id, const cell::RelayMsg& msg) {
    auto it = streams_.find(id.value());
    if (it == streams_.end()) return fail("a message for an unknown stream");
    SetStream& s = it->second;
    proto::StreamActions a;
    if (std::holds_alternative<cell::ConnectedMsg>(msg)) {
      a = s.machine.on_connected();
    } else if (const auto* d = std::get_if<cell::DataMsg>(&msg)) {
      a = s.machine.on_data();
      if (a.deliver_data) s.raw.insert(s.raw.end(), d->data.begin(), d->data.end());
    } else if (const auto* e = std::get_if<cell::EndMsg>(&msg)) {
      a = s.machine.on_end(e->reason);
      s.end = e->reason;
    } else if (std::holds_alternative<cell::SendmeMsg>(msg)) {
      a = s.machine.on_sendme();
    } else {
      a = s.machine.on_other(cell::command_of(msg));
    }
    if (a.violation) s.error = std::string("stream violation: ") + proto::to_string(*a.violation);
    // Stream SENDMEs are sequenced through the set, like DATA.
    if (a.send_sendme) send(s.id, cell::SendmeMsg{});
    if (a.opened) {
      s.connected = true;
      const std::string get = "GET " + s.path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
      if (!s.machine.data_sent()) fail("stream window closed for the request");
      send(s.id, cell::DataMsg{{get.begin(), get.end()}});
    }
  }

  Exit& x_;
  cell::ConfluxUx ux_;
  proto::ReorderBudget budget_;
  proto::ConfluxSet set_;
  proto::ClientLinker linker_;
  std::vector<net::ClientCircuit*> legs_;
  std::map<proto::LegId, proto::LinkNumbers> ours_;
  std::size_t linked_ = 0;
  std::map<std::uint16_t, SetStream> streams_;
  std::map<std::uint32_t, std::size_t> data_per_leg_;
  net::ClientCircuit* latest_data_ = nullptr;
  std::optional<std::string> error_;
};

// Waits until the stream has the whole file; checks it byte for byte.
void expect_whole_file(Exit& x, ClientSet& set, SetStream& s) {
  const bool done = run_until(x.io, [&] {
    set.pump();
    auto b = s.body();
    return (b && b->size() >= x.file.size()) || s.end || s.error || set.failed();
  }, 60s);
  INFO(set.why() << " " << s.error.value_or(""));
  REQUIRE(done);
  REQUIRE_FALSE(set.failed());
  REQUIRE_FALSE(s.error);
  REQUIRE(s.connected);
  auto b = s.body();
  REQUIRE(b);
  REQUIRE(b->size() == x.file.size());
  CHECK(std::equal(b->begin(), b->end(), x.file.begin()));
}

// Fetches /file over a new stream of the set; the body, checked whole.
void fetch_file(Exit& x, ClientSet& set, StreamId id) { expect_whole_file(x, set, set.open(id, "/file")); }

// A leg linked by hand into a set of its own, for cells no client would send.
void link_raw(Exit& x, net::ClientCircuit& c, const proto::ConfluxNonce& n) {
  cell::ConfluxLinkMsg lk;
  lk.nonce = n;
  lk.desired_ux = cell::ConfluxUx::HighThroughput;
  REQUIRE(c.send(kExitHop, StreamId{0}, lk));
  REQUIRE(run_until(x.io, [&] { return !c.inbox().empty() || c.destroyed(); }, 10s));
  REQUIRE_FALSE(c.destroyed());
  REQUIRE(std::holds_alternative<cell::ConfluxLinkedMsg>(c.inbox().front().msg));
  c.inbox().pop_front();
  REQUIRE(c.send(kExitHop, StreamId{0}, cell::ConfluxLinkedAckMsg{}));
}

cell::ConfluxSwitchMsg switch_by(std::uint32_t rel) { return cell::ConfluxSwitchMsg{SeqRel{rel}}; }

cell::DataMsg filler() { return cell::DataMsg{std::vector<std::uint8_t>(498, 0x5a)}; }

}  // namespace

TEST_CASE("relay process: a Conflux set at the exit serves a download over two legs, hostile sets close alone",
          "[processes][conflux]") {
  Exit x;
  Client client(x.io, x.clock);
  client.connect(x.or_endpoint(), x.target.identity);
  REQUIRE(run_until(x.io, [&] { return client.opened(); }, 10s));

  // ---- An honest set: two legs, one download, in order ----
  ClientSet good(x, cell::ConfluxUx::HighThroughput);
  good.add_leg(one_hop(x, client));
  good.add_leg(one_hop(x, client));
  good.link();
  CHECK(x.metric("conflux_relay_conflux_sets") == 1.0);
  CHECK(x.metric("conflux_relay_conflux_legs") == 2.0);
  fetch_file(x, good, StreamId{1});
  // Both legs carried a share (runs on the 2-vCPU VM: 424..3803 of ~4200 cells each).
  REQUIRE(good.data_per_leg().size() == 2);
  for (const auto& [leg, n] : good.data_per_leg()) CHECK(n >= 10);
  CHECK(good.switches_received() >= 1);
  CHECK(x.metric("conflux_relay_conflux_switches_total{direction=\"sent\"}") >= 1.0);
  const double cap = x.metric("conflux_relay_conflux_reorder_cap_bytes");
  CHECK(cap > 0);

  // ---- Hostile sets ----
  // Duplicated numbers: two legs each send "cell 1".
  auto& d1 = one_hop(x, client);
  auto& d2 = one_hop(x, client);
  proto::ConfluxNonce dup_nonce;
  crypto::random_bytes(dup_nonce);
  link_raw(x, d1, dup_nonce);
  link_raw(x, d2, dup_nonce);
  REQUIRE(d1.send(kExitHop, StreamId{9}, filler()));
  REQUIRE(d2.send(kExitHop, StreamId{9}, filler()));
  // SWITCH abuse: a zero SWITCH after a cell.
  auto& z = one_hop(x, client);
  proto::ConfluxNonce zero_nonce;
  crypto::random_bytes(zero_nonce);
  link_raw(x, z, zero_nonce);
  REQUIRE(z.send(kExitHop, StreamId{9}, filler()));
  REQUIRE(z.send(kExitHop, StreamId{0}, switch_by(0)));
  REQUIRE(run_until(x.io, [&] { return d1.destroyed() && d2.destroyed() && z.destroyed(); }, 10s));
  CHECK(*d1.destroyed() == cell::DestroyReason::Protocol);
  CHECK(*d2.destroyed() == cell::DestroyReason::Protocol);
  CHECK(*z.destroyed() == cell::DestroyReason::Protocol);

  // An unbounded gap: cells ahead of numbers that never come (within the
  // reorder window, 32768 cells past delivery), until the set's reorder cap
  // (4 MiB, about 7500 cells) closes it. Memory is watched on the way.
  auto& g = one_hop(x, client);
  proto::ConfluxNonce gap_nonce;
  crypto::random_bytes(gap_nonce);
  link_raw(x, g, gap_nonce);
  REQUIRE(g.send(kExitHop, StreamId{0}, switch_by(100)));
  std::size_t sent = 0;
  double most = 0;
  while (!g.destroyed() && sent < 20000) {
    if (!g.can_send_data()) {
      // Wait for the exit's circuit SENDME (it acknowledges what arrived).
      REQUIRE(run_until(x.io, [&] { return g.can_send_data() || g.destroyed(); }, 10s));
      const double now_bytes = x.metric("conflux_relay_conflux_reorder_bytes");
      CHECK(now_bytes <= cap);
      most = std::max(most, now_bytes);
      continue;
    }
    REQUIRE(g.send(kExitHop, StreamId{9}, filler()));
    ++sent;
  }
  REQUIRE(run_until(x.io, [&] { return g.destroyed().has_value(); }, 10s));
  CHECK(*g.destroyed() == cell::DestroyReason::ResourceLimit);
  INFO("cells sent into the gap: " << sent << ", most reorder bytes seen: " << most);
  CHECK(most > 1024 * 1024);
  CHECK(most <= 4.0 * 1024 * 1024);  // the per-set cap (ReceiverLimits::max_set_bytes)

  // Only the hostile sets closed; the honest one still serves.
  CHECK(x.metric("conflux_relay_conflux_sets_closed_total{reason=\"protocol\"}") == 2.0);
  CHECK(x.metric("conflux_relay_conflux_sets_closed_total{reason=\"memory\"}") == 1.0);
  CHECK(x.metric("conflux_relay_conflux_reorder_bytes") == 0.0);
  CHECK(x.metric("conflux_relay_conflux_sets") == 1.0);
  CHECK(x.metric("conflux_relay_conflux_legs") == 2.0);
  fetch_file(x, good, StreamId{2});
  CHECK(x.proc->running());
}

namespace {

// One set of two legs downloads the file; when a quarter is in, the leg that
// carried the latest DATA cell dies and the other is relinked. The file must
// arrive whole. Returns whether the relay resent anything (it resends only
// what was in flight on the dead leg, which the scheduler may have left
// idle just then).
bool download_through_a_leg_death(Exit& x, Client& client) {
  const double resent_before = x.metric("conflux_relay_conflux_cells_resent_total{leg=\"surviving\"}");
  ClientSet set(x, cell::ConfluxUx::HighThroughput);
  set.add_leg(one_hop(x, client));
  set.add_leg(one_hop(x, client));
  set.link();
  auto& s = set.open(StreamId{1}, "/file");
  REQUIRE(run_until(x.io, [&] {
    set.pump();
    auto b = s.body();
    return (b && b->size() >= x.file.size() / 4) || set.failed();
  }, 60s));
  REQUIRE_FALSE(set.failed());
  net::ClientCircuit* victim = set.latest_data_leg();
  REQUIRE(victim != nullptr);
  net::ClientCircuit* survivor = set.legs()[0] == victim ? set.legs()[1] : set.legs()[0];
  set.kill_and_relink(*victim, *survivor);
  expect_whole_file(x, set, s);
  return x.metric("conflux_relay_conflux_cells_resent_total{leg=\"surviving\"}") > resent_before;
}

}  // namespace

TEST_CASE("relay process: a leg dies mid-download, the relay resends its cells on the relinked surviving leg",
          "[processes][conflux]") {
  Exit x;
  Client client(x.io, x.clock);
  client.connect(x.or_endpoint(), x.target.identity);
  REQUIRE(run_until(x.io, [&] { return client.opened(); }, 10s));
  int tries = 0;
  bool resent = false;
  while (!resent && tries < 4) {
    ++tries;
    resent = download_through_a_leg_death(x, client);
  }
  CHECK(resent);
  CHECK(x.metric("conflux_relay_conflux_legs_relinked_total") == tries);
  CHECK(x.metric("conflux_relay_conflux_cells_resent_total{leg=\"replacement\"}") == 0.0);
  CHECK(x.metric("conflux_relay_conflux_legs") == 1.0 * tries);
  CHECK(x.metric("conflux_relay_conflux_reorder_bytes") == 0.0);
  CHECK(x.proc->running());
}

// The relay's congestion-control metrics (conflux_relay_cc_*): a one-hop
// circuit that asked the exit for congestion control downloads the file;
// the scrape then shows that circuit's Vegas state under its handle, and
// slow start either still on or left exactly once.
TEST_CASE("relay process: the MetricsPort shows the Vegas state of a circuit with congestion control",
          "[processes][metrics][cc]") {
  Exit x;
  Client client(x.io, x.clock);
  client.connect(x.or_endpoint(), x.target.identity);
  REQUIRE(run_until(x.io, [&] { return client.opened(); }, 10s));
  CHECK(x.metric("conflux_relay_cc_circuits{state=\"slow_start\"}") == 0.0);
  CHECK(x.metric("conflux_relay_cc_circuits{state=\"steady\"}") == 0.0);

  proto::ClientCircuitConfig config;
  config.now = [&x] { return x.clock.now(); };
  auto& circ = build_circuit(x.io, client, {x.target}, std::move(config), proto::HopOptions{true});
  REQUIRE(circ.machine().congestion_control().has_value());
  HttpFetch fetch(circ, StreamId{1}, "/file");
  REQUIRE(fetch.begin(x.http->port()));
  REQUIRE(run_until(x.io, [&] {
    fetch.pump();
    return fetch.finished();
  }, 30s));
  REQUIRE(fetch.complete());
  CHECK(std::equal(x.file.begin(), x.file.end(), fetch.body()->begin()));

  const std::string m = x.scrape();
  const auto val = [&m](const std::string& series) {
    const auto v = sample(m, series);
    INFO(series);
    REQUIRE(v.has_value());
    return *v;
  };
  const double ss = val("conflux_relay_cc_circuits{state=\"slow_start\"}");
  CHECK(ss + val("conflux_relay_cc_circuits{state=\"steady\"}") == 1.0);
  double exits = 0;
  for (const char* why : {"inc_floor", "congestion", "ss_max"}) {
    exits += val(std::string("conflux_relay_cc_slow_start_exits_total{reason=\"") + why + "\"}");
  }
  CHECK(exits + ss == 1.0);  // left slow start once, or still in it
  // One circuit: one set of per-circuit series, under its handle.
  static const std::regex cwnd_re(R"re(\nconflux_relay_cc_cwnd_cells\{circuit="(\d+)"\} (\d+))re");
  std::smatch match;
  REQUIRE(std::regex_search(m, match, cwnd_re));
  const std::string label = "{circuit=\"" + match[1].str() + "\"}";
  const double cwnd = std::stod(match[2].str());
  CHECK(cwnd >= 124);  // tor's cc_cwnd_min
  CHECK(std::distance(std::sregex_iterator(m.begin(), m.end(), cwnd_re), std::sregex_iterator()) == 1);
  CHECK(val("conflux_relay_cc_slow_start" + label) == ss);
  CHECK(val("conflux_relay_cc_inflight_cells" + label) <= cwnd);
  CHECK(val("conflux_relay_cc_bdp_cells" + label) <= cwnd);
  const double min_rtt = val("conflux_relay_cc_min_rtt_seconds" + label);
  CHECK(min_rtt > 0);
  CHECK(min_rtt <= val("conflux_relay_cc_rtt_seconds" + label));
  // 2 MiB down, nothing up: no XOFF either way (the test client sends none).
  CHECK(val("conflux_relay_exit_stream_flow_cells_total{cell=\"xoff\",direction=\"received\"}") == 0.0);
  CHECK(val("conflux_relay_exit_stream_flow_cells_total{cell=\"xoff\",direction=\"sent\"}") == 0.0);
}
