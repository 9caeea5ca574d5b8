// One conflux-relay process (a bridge with a DirPort and a MetricsPort) on
// 127.0.0.1: the MetricsPort answers a scrape in the exposition format; a
// client fetches the bridge's own descriptor over a one-hop CREATE_FAST
// circuit with BEGIN_DIR (as conflux-proxy does for bridges); the counters
// the next scrapes show follow the circuit, the stream and the DESTROY. The
// bridge runs KIST with the 2014 paper's limits (KISTLimit Original,
// KISTGlobalLimit 1): its log and scheduler metrics show the torrc reached
// the scheduler.
#include <cstdio>
#include <regex>

#include "conflux/dir/tor_server_descriptor.hpp"
#include "conflux/keys/relay_keys.hpp"
#include "conflux/net/socket_info.hpp"
#include "test_net_processes_client.hpp"
#include "test_net_processes_support.hpp"

#ifndef CONFLUX_RELAY_BINARY
#error "CONFLUX_RELAY_BINARY must name the conflux-relay program (tests/CMakeLists.txt)"
#endif

using namespace conflux;
using namespace conflux::test::procs;

namespace {

// GET (or anything else) on the MetricsPort; the whole reply.
net::awaitable<std::string> http_exchange(net::tcp::endpoint to, std::string request) {
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

struct Bridge {
  TempDir tmp;
  net::SystemClock clock;
  asio::io_context io;
  crypto::Ed25519Public identity{};
  std::uint16_t or_port = 0, dir_port = 0, metrics_port = 0;
  std::unique_ptr<Child> proc;
  fs::path log_path = tmp.path() / "bridge.log";

  Bridge() {
    auto k = keys::load_or_create_relay_keys(tmp.path() / "data", clock.unix_seconds());
    REQUIRE(k.has_value());
    identity = k->identity();
    start_relay_retrying(*this);
  }
  ~Bridge() {
    print_report_if_failing([this] { return report(); });
    proc.reset();  // SIGKILL and reap before the directory goes
  }

  bool start() {
    const auto ports = free_ports(io, 3);
    or_port = ports[0];
    dir_port = ports[1];
    metrics_port = ports[2];
    const auto torrc = tmp.path() / "bridge.torrc";
    write_text(torrc, "Nickname bridge\nDataDirectory " + (tmp.path() / "data").string() +
                          "\nORPort 127.0.0.1:" + std::to_string(or_port) + "\nDirPort 127.0.0.1:" +
                          std::to_string(dir_port) + "\nMetricsPort " + std::to_string(metrics_port) +
                          "\nBridgeRelay 1\nLog notice file " + log_path.string() + "\nTestingTorNetwork 1\n" +
                          "KISTLimit Original\nKISTGlobalLimit 1\n");
    std::error_code ignored;
    fs::remove(log_path, ignored);
    proc = std::make_unique<Child>("bridge", CONFLUX_RELAY_BINARY, std::vector<std::string>{"-f", torrc.string()},
                                   tmp.path() / "bridge.out");
    proc->start();
    auto up = [&] { return read_text(log_path).find(" is up as ") != std::string::npos; };
    (void)run_until(io, [&] { return up() || !proc->running(); }, 30s);
    return proc->running() && up();
  }

  [[nodiscard]] std::string report() const {
    return "---- bridge log ----\n" + read_text(log_path) + "---- stdout/stderr ----\n" +
           (proc ? proc->output_text() : std::string());
  }

  std::string exchange(const std::string& request) {
    auto r = await_in(io, http_exchange({kLoopback, metrics_port}, request), 10s);
    REQUIRE(r.has_value());
    return *r;
  }
  // The body of a successful scrape.
  std::string scrape() {
    const auto r = exchange("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    INFO(r);
    REQUIRE(r.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
    REQUIRE(r.find("\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n") != std::string::npos);
    return "\n" + r.substr(r.find("\r\n\r\n") + 4);  // "\n" first: every sample line starts after one
  }
};

}  // namespace

TEST_CASE("relay process: MetricsPort scrapes follow a BEGIN_DIR over a one-hop circuit", "[processes][metrics]") {
  Bridge b;
  REQUIRE(b.report().find("Opened Metrics listener on 127.0.0.1:" + std::to_string(b.metrics_port)) !=
          std::string::npos);

  // ---- A scrape before any client ----
  auto m = b.scrape();
  CHECK(m.find("\n# TYPE conflux_relay_circuits gauge\n") != std::string::npos);
  CHECK(m.find("\n# TYPE conflux_relay_circuits_destroyed_total counter\n") != std::string::npos);
  CHECK(sample(m, "conflux_relay_circuits") == 0.0);
  CHECK(sample(m, "conflux_relay_circuits_created_total") == 0.0);
  CHECK(sample(m, "conflux_relay_channels_open{direction=\"inbound\"}") == 0.0);
  CHECK(sample(m, "conflux_relay_exit_begin_dirs_total") == 0.0);
  CHECK(sample(m, "conflux_relay_exit_ends_sent_total{reason=\"NOTDIRECTORY\"}") == 0.0);
  CHECK(b.exchange("GET / HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 404 ", 0) == 0);
  CHECK(b.exchange("POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n").rfind("HTTP/1.1 405 ", 0) == 0);

  // ---- BEGIN_DIR on a one-hop CREATE_FAST circuit: the bridge's descriptor ----
  Client client(b.io, b.clock);
  client.connect({kLoopback, b.or_port}, b.identity);
  REQUIRE(run_until(b.io, [&] { return client.opened(); }, 10s));
  auto& circ = client.new_circuit();
  REQUIRE(circ.create_fast());
  REQUIRE(run_until(b.io, [&] { return circ.hops() == 1 || circ.state() == net::ClientCircuit::State::Closed; }, 10s));
  REQUIRE(circ.hops() == 1);
  // The bridge serves its descriptor once it has signed one: ask until it does.
  std::string status;
  std::string body;
  std::uint16_t streams = 0;
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (status.find(" 200 ") == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    const StreamId id{++streams};
    HttpFetch fetch(circ, id, "/tor/server/authority");
    REQUIRE(circ.send(HopNum{1}, id, cell::BeginDirMsg{}));
    REQUIRE(run_until(b.io, [&] {
      fetch.pump();
      return fetch.finished();
    }, 10s));
    INFO(fetch.error().value_or(""));
    REQUIRE(fetch.connected());
    REQUIRE_FALSE(fetch.error().has_value());
    status = fetch.status_line();
    if (auto bytes = fetch.body()) body.assign(bytes->begin(), bytes->end());
    // The stream ends after the reply (the DirPort closes): END DONE.
    REQUIRE(run_until(b.io, [&] {
      fetch.pump();
      return fetch.end().has_value();
    }, 10s));
    CHECK(*fetch.end() == cell::EndReason::Done);
    if (status.find(" 200 ") == std::string::npos) idle_for(b.io, 300ms);
  }
  INFO(status);
  REQUIRE(status.find(" 200 ") != std::string::npos);
  const auto desc = dir::parse_tor_server_descriptor(body, b.clock.unix_seconds());
  REQUIRE(desc.has_value());
  CHECK(desc->ed25519_identity == b.identity);

  m = b.scrape();
  CHECK(sample(m, "conflux_relay_circuits") == 1.0);
  CHECK(sample(m, "conflux_relay_circuits_created_total") == 1.0);
  CHECK(sample(m, "conflux_relay_channels_open{direction=\"inbound\"}") == 1.0);
  CHECK(sample(m, "conflux_relay_exit_begin_dirs_total") == static_cast<double>(streams));
  CHECK(sample(m, "conflux_relay_exit_streams_connected_total") == static_cast<double>(streams));
  CHECK(sample(m, "conflux_relay_exit_ends_sent_total{reason=\"DONE\"}") == static_cast<double>(streams));
  CHECK(sample(m, "conflux_relay_exit_begins_total") == 0.0);
  CHECK(sample(m, "conflux_relay_cells_total{direction=\"in\"}").value_or(0) >= 2.0);
  CHECK(sample(m, "conflux_relay_bytes_total{direction=\"out\"}").value_or(0) > static_cast<double>(body.size()));
  // KIST with the original limit: three system calls per kernel query.
  if (net::kist_supported_at_build()) {  // else KISTLite, which asks the kernel nothing
    CHECK(read_text(b.log_path).find("Scheduler: KIST (original limit, global limit);") != std::string::npos);
    const double queries = sample(m, "conflux_relay_sched_tcp_info_calls_total").value_or(0);
    CHECK(queries > 0);
    CHECK(sample(m, "conflux_relay_sched_kernel_calls_total") == 3 * queries);
    CHECK(sample(m, "conflux_relay_sched_global_limit_bytes").has_value());
  }
  // The kernel-queue probes' own cost (METRICS.md, "Kernel queue time").
  for (const char* name : {"conflux_relay_sched_probe_wakeups_total", "conflux_relay_sched_probe_polls_total",
                           "conflux_relay_sched_probes_settled_in_runs_total",
                           "conflux_relay_cell_kernel_probes_given_up_total"}) {
    INFO(name);
    CHECK(sample(m, name).has_value());
  }

  // ---- The client destroys the circuit: the relay counts it by reason ----
  circ.destroy(cell::DestroyReason::Finished);
  REQUIRE(run_until(b.io, [&] { return sample(b.scrape(), "conflux_relay_circuits") == 0.0; }, 5s));
  m = b.scrape();
  CHECK(sample(m, "conflux_relay_circuits_closed_total") == 1.0);
  CHECK(sample(m, "conflux_relay_circuits_destroyed_total{reason=\"FINISHED\"}") == 1.0);
}
