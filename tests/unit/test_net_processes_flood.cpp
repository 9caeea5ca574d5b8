// Issue 20's flood test: one conflux-relay process (an exit, DoS defences
// on with tor's numbers, MaxMemInQueues 8 MB under TestingTorNetwork) and,
// at the same time, from four loopback addresses:
//   - 127.0.0.2 opens circuits at 500/s over 3 connections (CREATE_FAST);
//   - 127.0.0.3 opens 1000 connections, 50 at a time, and keeps them;
//   - 127.0.0.4 asks for downloads over 80 circuits and stops reading its
//     socket before they start, so the relay's queues towards it fill
//     (20 MB asked for);
//   - 127.0.0.1, a normal client, downloads 5 MiB.
// The normal download completes; the circuit flooder is refused after its
// burst, the connection flooder is cut at its connect burst, the silent
// reader's circuits are closed once the queues reach MaxMemInQueues; and the
// queued bytes never pass MaxMemInQueues by more than the documented slack
// (docs/OPERATORS.md).
#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/random.hpp"
#include "conflux/keys/relay_keys.hpp"
#include "test_net_processes_client.hpp"
#include "test_net_processes_support.hpp"

#ifndef CONFLUX_RELAY_BINARY
#error "CONFLUX_RELAY_BINARY must name the conflux-relay program (tests/CMakeLists.txt)"
#endif

using namespace conflux;
using namespace conflux::test::procs;

namespace {

constexpr std::size_t kFileSize = 5 * 1024 * 1024;
constexpr std::uint64_t kMaxMem = 8 * 1024 * 1024;
// What may be queued beyond MaxMemInQueues: the relay checks after each
// batch of cells one event produces, and the scrape sees the total before
// the check that follows it. One read of 16 KiB of cells fans out to at most
// a few dozen cells: 64 KiB is generous.
constexpr std::uint64_t kQueueSlack = 64 * 1024;
// The relay process's RSS growth beyond MaxMemInQueues (see the last check).
constexpr std::uint64_t kRssSlack = 160 * 1024 * 1024;

net::awaitable<std::string> http_get(net::tcp::endpoint to, std::string request) {
  net::tcp::socket s(co_await asio::this_coro::executor);
  auto [cec] = co_await s.async_connect(to, net::use_nothrow);
  if (cec) co_return std::string();
  (void)co_await asio::async_write(s, asio::buffer(request), net::use_nothrow);
  std::string out;
  std::array<char, 4096> buf{};
  while (out.size() < (1U << 20)) {
    auto [ec, n] = co_await s.async_read_some(asio::buffer(buf), net::use_nothrow);
    if (ec) break;
    out.append(buf.data(), n);
  }
  co_return "\n" + out;
}

double sample(const std::string& body, const std::string& series) {
  const auto at = body.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  const auto start = at + series.size() + 2;
  return std::stod(body.substr(start, body.find('\n', start) - start));
}

std::uint64_t rss_bytes(pid_t pid) {
  const auto text = read_text("/proc/" + std::to_string(pid) + "/status");
  const auto at = text.find("VmRSS:");
  if (at == std::string::npos) return 0;
  return std::stoull(text.substr(at + 6)) * 1024;
}

net::ClientLink::Options from(const char* address) {
  net::ClientLink::Options o;
  o.bind_address = asio::ip::make_address(address);
  return o;
}

struct Exit {
  TempDir tmp;
  net::SystemClock clock;
  asio::io_context io;
  std::vector<std::uint8_t> file = std::vector<std::uint8_t>(kFileSize);
  std::unique_ptr<HttpServer> http;
  crypto::Ed25519Public identity{};
  std::uint16_t or_port = 0, metrics_port = 0;
  std::unique_ptr<Child> proc;
  fs::path log_path = tmp.path() / "exit.log";

  Exit() {
    crypto::random_bytes(file);
    http = std::make_unique<HttpServer>(io, file);
    auto k = keys::load_or_create_relay_keys(tmp.path() / "data", clock.unix_seconds());
    REQUIRE(k.has_value());
    identity = k->identity();
    start_relay_retrying(*this);
  }
  ~Exit() {
    print_report_if_failing([this] { return report(); });
    proc.reset();
  }

  bool start() {
    const auto ports = free_ports(io, 2);
    or_port = ports[0];
    metrics_port = ports[1];
    const auto torrc = tmp.path() / "exit.torrc";
    write_text(torrc, "Nickname flood\nDataDirectory " + (tmp.path() / "data").string() + "\nORPort 127.0.0.1:" +
                          std::to_string(or_port) + "\nMetricsPort " + std::to_string(metrics_port) +
                          "\nLog notice file " + log_path.string() +
                          "\nTestingTorNetwork 1\nExitRelay 1\nExitPolicyRejectPrivate 0\n"
                          "ExitPolicy accept 127.0.0.1:" + std::to_string(http->port()) +
                          "\nExitPolicy reject *:*\nMaxMemInQueues 8 MB\n"
                          "DoSCircuitCreationEnabled 1\nDoSConnectionEnabled 1\n");
    std::error_code ignored;
    fs::remove(log_path, ignored);
    // Under ASan, freed memory waits in a 256 MB quarantine by default: a
    // small one keeps the relay's RSS close to what it really holds.
    if (const char* asan = std::getenv("ASAN_OPTIONS"); asan == nullptr || std::string(asan).find("quarantine") == std::string::npos)
      ::setenv("ASAN_OPTIONS", (std::string(asan ? asan : "") + ":quarantine_size_mb=16").c_str(), 1);
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
  [[nodiscard]] net::tcp::endpoint or_endpoint() const { return {kLoopback, or_port}; }
  std::string scrape() {
    auto r = await_in(io, http_get({kLoopback, metrics_port}, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), 10s);
    REQUIRE(r.has_value());
    return *r;
  }
};

// Samples the relay's queued bytes and RSS every 50 ms while it runs.
struct Sampler {
  std::uint64_t peak_queued = 0;
  // Everything MaxMemInQueues counts: cell queues, channel buffers, the
  // exit's stream buffers and Conflux reorder queues.
  std::uint64_t peak_total = 0;
  std::uint64_t peak_channels = 0;  // the channels' own buffers
  std::uint64_t peak_rss = 0;
  bool stop = false;
};

net::awaitable<void> sample_loop(net::tcp::endpoint metrics, pid_t pid, std::shared_ptr<Sampler> s) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  while (!s->stop) {
    const auto body = co_await http_get(metrics, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
    const double q = sample(body, "conflux_relay_queued_cell_bytes");
    if (q >= 0) s->peak_queued = std::max(s->peak_queued, static_cast<std::uint64_t>(q));
    const double channels = sample(body, "conflux_relay_channel_buffered_bytes");
    const double exit_held = sample(body, "conflux_relay_exit_buffered_bytes");
    if (channels >= 0) s->peak_channels = std::max(s->peak_channels, static_cast<std::uint64_t>(channels));
    if (q >= 0 && channels >= 0 && exit_held >= 0)
      s->peak_total = std::max(s->peak_total, static_cast<std::uint64_t>(q + channels + exit_held));
    s->peak_rss = std::max(s->peak_rss, rss_bytes(pid));
    timer.expires_after(50ms);
    (void)co_await timer.async_wait(net::use_nothrow);
  }
}

// 127.0.0.2: CREATE_FAST at 500/s, round robin over three connections.
struct CircuitFlooder {
  std::vector<std::unique_ptr<Client>> links;
  std::vector<net::ClientCircuit*> circuits;
  std::size_t sent = 0;

  CircuitFlooder(asio::io_context& io, const net::Clock& clock, const Exit& exit) {
    for (int i = 0; i < 3; ++i) {
      links.push_back(std::make_unique<Client>(io, clock, from("127.0.0.2")));
      links.back()->connect(exit.or_endpoint(), exit.identity);
    }
    REQUIRE(run_until(io, [&] { return links[0]->opened() && links[1]->opened() && links[2]->opened(); }, 20s));
  }
  // Sends what is due `elapsed` after the start (500/s, 1000 in all).
  void send_due(std::chrono::milliseconds elapsed) {
    const auto due = std::min<std::size_t>(1000, static_cast<std::size_t>(elapsed.count()) / 2);
    while (sent < due) {
      auto& c = links[sent % 3]->new_circuit();
      REQUIRE(c.create_fast());
      circuits.push_back(&c);
      ++sent;
    }
  }
  [[nodiscard]] std::size_t count(bool created) const {
    std::size_t n = 0;
    for (const auto* c : circuits)
      n += created ? c->hops() == 1 : c->destroyed() == cell::DestroyReason::ResourceLimit;
    return n;
  }
};

// 127.0.0.3: 1000 connections, at most 50 handshakes at once; those that
// open are kept.
struct ConnectionFlooder {
  asio::io_context& io;
  const net::Clock& clock;
  const Exit& exit;
  asio::ssl::context tls = net::make_tls_client_context();
  net::Scheduler scheduler;
  std::vector<std::unique_ptr<net::ClientLink>> links;
  std::vector<char> was_open;  // by link
  std::size_t opened = 0, failed = 0;  // failed: closed before it opened

  ConnectionFlooder(asio::io_context& i, const net::Clock& c, const Exit& e)
      : io(i), clock(c), exit(e), scheduler(i, c, nullptr) {}
  void step() {
    while (links.size() < 1000 && links.size() - opened - failed < 50) {
      net::ClientLink::Callbacks cb;
      const std::size_t index = links.size();
      was_open.push_back(0);
      cb.on_open = [this, index] {
        was_open[index] = 1;
        ++opened;
      };
      cb.on_closed = [this, index](std::string_view) {
        if (was_open[index] == 0) ++failed;
      };
      links.push_back(std::make_unique<net::ClientLink>(io, tls, scheduler, clock, std::move(cb), from("127.0.0.3")));
      links.back()->connect({exit.or_endpoint()}, exit.identity);
    }
  }
  [[nodiscard]] bool done() const { return links.size() == 1000 && opened + failed >= 1000; }
};

}  // namespace

TEST_CASE("relay flood: circuit, connection and silent-reader floods beside a normal 5 MiB download",
          "[processes][dos][oom]") {
  Exit exit;
  const auto rss_before = rss_bytes(exit.proc->pid());

  // The silent reader, on a loop of its own that stops being run once its
  // requests reached the web server: its socket is then never read again.
  // The server answers none of them before that, so every stream's window
  // (500 cells) is still to come and waits at the relay, whatever the
  // speed of the build (a fast one read whole files while it set up).
  asio::io_context quiet_io;
  Client quiet(quiet_io, exit.clock, from("127.0.0.4"));
  quiet.connect(exit.or_endpoint(), exit.identity);
  auto both = [&](const std::function<bool()>& done, std::chrono::milliseconds limit) {
    return run_until(
        exit.io,
        [&] {
          quiet_io.poll();
          return done();
        },
        limit);
  };
  REQUIRE(both([&] { return quiet.opened(); }, 20s));
  std::vector<std::unique_ptr<HttpFetch>> quiet_fetches;
  exit.http->hold(true);
  for (int i = 0; i < 80; ++i) {
    // One stream per circuit (HttpFetch reads its circuit's whole inbox):
    // 500 cells each (the stream window) can wait at the relay.
    auto& c = quiet.new_circuit();
    REQUIRE(c.create_fast());
    REQUIRE(both([&] { return c.hops() == 1 || c.destroyed(); }, 20s));
    REQUIRE(c.hops() == 1);
    quiet_fetches.push_back(std::make_unique<HttpFetch>(c, StreamId{1}, "/file"));
    REQUIRE(quiet_fetches.back()->begin(exit.http->port()));
  }
  REQUIRE(both(
      [&] {
        std::size_t connected = 0;
        for (auto& f : quiet_fetches) {
          f->pump();
          connected += f->connected();
        }
        return connected == quiet_fetches.size() && exit.http->requests() == quiet_fetches.size();
      },
      30s));
  exit.http->hold(false);

  // The normal client and the two flooders, all at once.
  Client normal(exit.io, exit.clock);
  normal.connect(exit.or_endpoint(), exit.identity);
  REQUIRE(run_until(exit.io, [&] { return normal.opened(); }, 20s));
  auto& circ = normal.new_circuit();
  REQUIRE(circ.create_fast());
  REQUIRE(run_until(exit.io, [&] { return circ.hops() == 1 || circ.destroyed(); }, 20s));
  REQUIRE(circ.hops() == 1);
  HttpFetch fetch(circ, StreamId{1}, "/file");

  CircuitFlooder circuits(exit.io, exit.clock, exit);
  ConnectionFlooder connections(exit.io, exit.clock, exit);
  auto sampler = std::make_shared<Sampler>();
  asio::co_spawn(exit.io, sample_loop({kLoopback, exit.metrics_port}, exit.proc->pid(), sampler), asio::detached);

  const auto start = std::chrono::steady_clock::now();
  double fetch_secs = 0, circuits_secs = 0, connections_secs = 0;
  auto since_start = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  REQUIRE(fetch.begin(exit.http->port()));
  const bool all_done = run_until(
      exit.io,
      [&] {
        const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
        circuits.send_due(elapsed);
        connections.step();
        fetch.pump();
        if (fetch_secs == 0 && fetch.finished()) fetch_secs = since_start();
        if (circuits_secs == 0 && circuits.count(true) + circuits.count(false) == 1000) circuits_secs = since_start();
        if (connections_secs == 0 && connections.done()) connections_secs = since_start();
        return fetch_secs > 0 && circuits_secs > 0 && connections_secs > 0;
      },
      90s);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  idle_for(exit.io, 500ms);  // the last answers to the circuit flooder
  sampler->stop = true;
  const auto metrics = exit.scrape();
  INFO(metrics);
  REQUIRE(all_done);

  // The normal client got its 5 MiB, byte for byte.
  INFO((fetch.error() ? *fetch.error() : std::string()));
  REQUIRE(fetch.complete());
  REQUIRE(fetch.body()->size() == kFileSize);
  CHECK(crypto::sha256(*fetch.body()) == crypto::sha256(exit.file));

  // The circuit flooder: its burst (90) and what its rate (3/s) refilled
  // got through; the rest were refused with DESTROY RESOURCELIMIT.
  const auto created = circuits.count(true);
  const auto refused = circuits.count(false);
  std::printf("test_net_processes_flood: %.1f s (5 MiB in %.1f s, circuits %.1f s, connections %.1f s); circuits "
              "created %zu, refused %zu; connections opened %zu, closed %zu; queued peak %llu bytes; RSS %llu -> "
              "%llu MB\n",
              secs, fetch_secs, circuits_secs, connections_secs, created, refused, connections.opened, connections.failed,
              static_cast<unsigned long long>(sampler->peak_queued), static_cast<unsigned long long>(rss_before >> 20),
              static_cast<unsigned long long>(sampler->peak_rss >> 20));
  CHECK(created <= 90 + 3 * static_cast<std::size_t>(secs + 2));
  CHECK(created + refused == 1000);
  CHECK(sample(metrics, "tor_relay_dos_total{type=\"marked_address\"}") == 1);
  CHECK(sample(metrics, "tor_relay_dos_total{type=\"circuit_rejected\"}") >= static_cast<double>(refused));

  // The connection flooder: refused at accept once more than 100 of its
  // connections are open (DoSConnectionMaxConcurrentCount), or once it
  // opened 40 faster than 20/s (the connect burst). A connection counts when
  // the relay's side of its handshake finishes, so the handshakes under way
  // then still get through: at most 50 from the flooder's side, plus those
  // the flooder already saw open and the relay had not counted yet (more
  // the slower the relay): hence "limited", not an exact count.
  CHECK(connections.opened + connections.failed == 1000);
  CHECK(connections.opened >= 40);
  CHECK(connections.opened <= 250);
  const double conn_refused = sample(metrics, "tor_relay_dos_total{type=\"conn_rejected\"}") +
                              sample(metrics, "tor_relay_dos_total{type=\"concurrent_conn_rejected\"}");
  // Every other one was closed by the defence, at accept.
  CHECK(conn_refused >= static_cast<double>(connections.failed) - 10);

  // The silent reader: its circuits were closed for memory, oldest first.
  CHECK(sample(metrics, "conflux_relay_oom_circuits_killed_total") >= 1);
  CHECK(sample(metrics, "tor_relay_load_oom_bytes_total{subsys=\"cell\"}") > 0);
  CHECK(sample(metrics, "conflux_relay_max_mem_in_queues_bytes") == static_cast<double>(kMaxMem));
  INFO("peaks: queued " << sampler->peak_queued << ", total " << sampler->peak_total << ", channel buffers "
                        << sampler->peak_channels);
  // The limit was really approached: by everything it counts (the cell
  // queues alone peak lower now that the channels' buffers count too).
  CHECK(sampler->peak_total > kMaxMem * 3 / 4);
  CHECK(sampler->peak_queued <= kMaxMem + kQueueSlack);
  CHECK(sampler->peak_total <= kMaxMem + kQueueSlack);
  CHECK(sample(metrics, "conflux_relay_channel_buffered_bytes") >= 0);  // published
  CHECK(sample(metrics, "conflux_relay_queued_cell_bytes") <= static_cast<double>(kMaxMem + kQueueSlack));
  CHECK(exit.report().find("We're low on memory") != std::string::npos);
  // The process as a whole (an ASan build: redzones, shadow memory, a 16 MB
  // quarantine, and the TLS state of ~250 connections on top of the queues).
  CHECK(sampler->peak_rss - std::min(sampler->peak_rss, rss_before) <= kMaxMem + kRssSlack);

  // tor's heartbeat line, on SIGUSR1.
  exit.proc->signal(SIGUSR1);
  CHECK(run_until(exit.io, [&] { return exit.report().find("Heartbeat: DoS mitigation since startup: ") != std::string::npos; },
                  10s));
  CHECK(exit.report().find(" 1 marked addresses, 0 marked addresses for max queue, ") != std::string::npos);
  CHECK(exit.report().find("[DoSStreamCreationEnabled disabled]; MaxMemInQueues closed ") != std::string::npos);
}
