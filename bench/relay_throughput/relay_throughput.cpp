// relay-throughput: one circuit's throughput through three conflux-relay
// processes (guard, middle, exit; plus a directory authority they upload to)
// on 127.0.0.1, and the CPU seconds per MiB those three relays spend.
//
// The client is the integration test's (tests/unit/test_net_processes_*.hpp,
// reused as they are): ClientLink + ClientCircuit + the client StreamMachine
// in this process, with a local HTTP server on the same loop. Each run builds
// a fresh 3-hop circuit, then times one HTTP GET over one stream: from
// sending BEGIN to the last body byte. CPU is utime+stime from
// /proc/PID/stat of the three relays, read just before BEGIN and just after
// the last byte.
//
// Usage: relay-throughput [--runs N] [--sizes MiB,MiB,...]   (default 5, 5,50)
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <exception>

#include "conflux/bytes/hex.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/random.hpp"
#include "conflux/dirnet/tor_authority_keys.hpp"
#include "conflux/keys/fingerprint.hpp"
#include "conflux/keys/relay_keys.hpp"
#include "test_net_processes_client.hpp"
#include "test_net_processes_support.hpp"

#ifndef CONFLUX_RELAY_BINARY
#error "CONFLUX_RELAY_BINARY must name the conflux-relay program (bench/relay_throughput/CMakeLists.txt)"
#endif

using namespace conflux;
using namespace conflux::test::procs;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// utime + stime of a process, all threads, in seconds (clock-tick resolution).
double cpu_seconds(pid_t pid) {
  const std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');
  REQUIRE(close != std::string::npos);
  std::istringstream fields(stat.substr(close + 2));
  std::string f;
  unsigned long long ticks = 0;
  // After "pid (comm) ": field 3 (state) is index 0; utime (14) and stime (15).
  for (int i = 0; i <= 12 && (fields >> f); ++i)
    if (i == 11 || i == 12) ticks += std::stoull(f);
  return static_cast<double>(ticks) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

double self_cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return secs(u.ru_utime) + secs(u.ru_stime);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

struct Node {
  std::string name;
  fs::path data_dir;
  fs::path log_path;
  crypto::Ed25519Public identity{};
  crypto::RsaFingerprint rsa_fingerprint{};
  crypto::X25519Public onion_key{};
  std::uint16_t or_port = 0;
  std::uint16_t dir_port = 0;
  std::unique_ptr<Child> proc;

  [[nodiscard]] net::HopTarget target() const {
    return {identity, onion_key, {cell::LinkSpecIpv4{{127, 0, 0, 1}, or_port}}};
  }
  [[nodiscard]] bool up() const { return read_text(log_path).find(" is up as ") != std::string::npos; }
};

struct Network {
  TempDir tmp;  // first member: removed only after every process is gone
  net::SystemClock clock;
  asio::io_context io;
  std::map<std::size_t, std::vector<std::uint8_t>> files;  // size -> content
  std::map<std::size_t, std::unique_ptr<HttpServer>> servers;
  Node auth, guard, middle, exit;
  crypto::RsaFingerprint v3ident{};  // the authority's, for tor's form of DirAuthority

  std::vector<Node*> nodes() { return {&auth, &guard, &middle, &exit}; }

  explicit Network(const std::vector<std::size_t>& sizes) {
    for (auto size : sizes) {
      auto& f = files[size];
      f.resize(size);
      crypto::random_bytes(f);
      servers[size] = std::make_unique<HttpServer>(io, f);
    }
    auth.name = "auth";
    guard.name = "guard";
    middle.name = "middle";
    exit.name = "exit";
    for (auto* n : nodes()) {
      n->data_dir = tmp.path() / n->name;
      n->log_path = tmp.path() / (n->name + ".log");
      auto k = keys::load_or_create_relay_keys(n->data_dir, clock.unix_seconds());
      REQUIRE(k.has_value());
      n->identity = k->identity();
      n->rsa_fingerprint = k->rsa_fingerprint();
      n->onion_key = k->onion_key().key.public_key();
    }
    auto tk = dirnet::load_or_create_tor_authority_keys(auth.data_dir, clock.unix_seconds());
    REQUIRE(tk.has_value());
    v3ident = tk->v3ident();
    for (int attempt = 1; !start_all(); ++attempt) {
      REQUIRE(attempt < 3);
      for (auto* n : nodes()) n->proc.reset();
      std::printf("relay-throughput: a relay did not come up (port taken?); starting again\n");
    }
  }
  ~Network() {
    for (auto* n : nodes()) n->proc.reset();  // SIGKILL and reap before the directory goes
  }
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  bool start_all() {
    auto ports = free_ports(io, 5);
    auth.or_port = ports[0];
    auth.dir_port = ports[1];
    guard.or_port = ports[2];
    middle.or_port = ports[3];
    exit.or_port = ports[4];
    const std::string dir_authority = "DirAuthority auth orport=" + std::to_string(auth.or_port) + " v3ident=" +
                                      bytes::to_hex(v3ident, true) + " 127.0.0.1:" + std::to_string(auth.dir_port) +
                                      " " + bytes::to_hex(auth.rsa_fingerprint, true) + "\n";
    std::string accept;
    for (const auto& [size, server] : servers)
      accept += "ExitPolicy accept 127.0.0.1:" + std::to_string(server->port()) + "\n";
    for (auto* n : nodes()) {
      std::string torrc = "Nickname " + n->name + "\nDataDirectory " + n->data_dir.string() + "\nORPort 127.0.0.1:" +
                          std::to_string(n->or_port) + "\nLog notice file " + n->log_path.string() +
                          "\nTestingTorNetwork 1\n" + dir_authority;
      if (n == &auth)
        torrc += "DirPort 127.0.0.1:" + std::to_string(auth.dir_port) +
                 "\nAuthoritativeDirectory 1\nConsensusInterval 10 seconds\n";
      if (n == &exit) torrc += "ExitRelay 1\nExitPolicyRejectPrivate 0\n" + accept + "ExitPolicy reject *:*\n";
      const auto path = tmp.path() / (n->name + ".torrc");
      write_text(path, torrc);
      std::error_code ignored;
      fs::remove(n->log_path, ignored);
      n->proc = std::make_unique<Child>(n->name, CONFLUX_RELAY_BINARY, std::vector<std::string>{"-f", path.string()},
                                        tmp.path() / (n->name + ".out"));
      n->proc->start();
    }
    (void)run_until(
        io,
        [&] {
          for (auto* n : nodes())
            if (!n->up() && n->proc->running()) return false;
          return true;
        },
        30s);
    for (auto* n : nodes())
      if (!n->proc->running() || !n->up()) return false;
    return true;
  }

  // CPU seconds of the three relays on the path.
  double path_cpu() { return cpu_seconds(guard.proc->pid()) + cpu_seconds(middle.proc->pid()) + cpu_seconds(exit.proc->pid()); }
};

struct Run {
  double mib_per_s = 0;
  double path_cpu_per_mib = 0;
  double self_cpu_per_mib = 0;  // this process: client and HTTP server
};

// One download of `size` bytes over a fresh 3-hop circuit.
Run one_run(Network& net, Client& client, std::size_t size) {
  auto& circ = build_circuit(net.io, client, {net.guard.target(), net.middle.target(), net.exit.target()});
  idle_for(net.io, 300ms);  // let the circuit set-up's work settle out of the CPU figures
  HttpFetch fetch(circ, StreamId{1}, "/file");
  const double cpu0 = net.path_cpu();
  const double self0 = self_cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  REQUIRE(fetch.begin(net.servers.at(size)->port()));
  const bool done = run_until(
      net.io,
      [&] {
        fetch.pump();
        if (fetch.error() || fetch.end() || circ.destroyed() || circ.error()) return true;
        return fetch.received() >= size && fetch.complete();  // complete() parses the header: only near the end
      },
      300s);
  const double secs = seconds_since(t0);
  const double cpu = net.path_cpu() - cpu0;
  const double self = self_cpu_seconds() - self0;
  if (!done || !fetch.complete()) {
    std::fprintf(stderr, "relay-throughput: download failed after %zu bytes: %s%s%s\n", fetch.received(),
                 fetch.error() ? fetch.error()->c_str() : "", circ.error() ? circ.error()->c_str() : "",
                 circ.destroyed() ? " (circuit destroyed)" : "");
    REQUIRE(false);
  }
  REQUIRE(fetch.body()->size() == size);
  REQUIRE(crypto::sha256(*fetch.body()) == crypto::sha256(net.files.at(size)));
  // The exit's END (the server closed), so nothing of this stream is left.
  (void)run_until(
      net.io,
      [&] {
        fetch.pump();
        return fetch.end().has_value() || fetch.error().has_value();
      },
      10s);
  circ.destroy(cell::DestroyReason::Finished);
  const double mib = static_cast<double>(size) / kMiB;
  return {mib / secs, cpu / mib, self / mib};
}

int run(int runs, const std::vector<std::size_t>& sizes) {
  const auto t0 = std::chrono::steady_clock::now();
  Network net(sizes);
  std::printf("relay-throughput: %s\nrelay-throughput: authority, guard, middle, exit up in %.2f s\n",
              CONFLUX_RELAY_BINARY, seconds_since(t0));
  Client client(net.io, net.clock);
  client.connect({kLoopback, net.guard.or_port}, net.guard.identity);
  REQUIRE(run_until(net.io, [&] { return client.opened(); }, 10s));
  (void)one_run(net, client, sizes.front());  // warm-up: channels guard->middle->exit open, caches warm
  std::printf("%-8s %4s %10s %22s %22s\n", "size", "run", "MiB/s", "relays CPU s/MiB", "client+server CPU s/MiB");
  for (auto size : sizes) {
    std::vector<double> rate, cpu, self;
    for (int i = 1; i <= runs; ++i) {
      const Run r = one_run(net, client, size);
      rate.push_back(r.mib_per_s);
      cpu.push_back(r.path_cpu_per_mib);
      self.push_back(r.self_cpu_per_mib);
      std::printf("%-8s %4d %10.2f %22.4f %22.4f\n", (std::to_string(size >> 20) + "MiB").c_str(), i, r.mib_per_s,
                  r.path_cpu_per_mib, r.self_cpu_per_mib);
      std::fflush(stdout);
    }
    std::printf("%-8s %4s %10.2f %22.4f %22.4f\n", (std::to_string(size >> 20) + "MiB").c_str(), "med",
                median(rate), median(cpu), median(self));
  }
  std::printf("relay-throughput: done in %.1f s\n", seconds_since(t0));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  std::vector<std::size_t> sizes{5u << 20, 50u << 20};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--sizes" && i + 1 < argc) {
      sizes.clear();
      std::istringstream list(argv[++i]);
      for (std::string mib; std::getline(list, mib, ',');)
        if (const long n = std::atol(mib.c_str()); n > 0 && n <= 1024) sizes.push_back(static_cast<std::size_t>(n) << 20);
    } else {
      std::fprintf(stderr, "usage: relay-throughput [--runs N] [--sizes MiB,MiB,...]\n");
      return 2;
    }
  }
  if (sizes.empty()) {
    std::fprintf(stderr, "relay-throughput: no sizes\n");
    return 2;
  }
  try {
    return run(runs, sizes);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "relay-throughput: %s\n", e.what());
    return 1;
  }
}
