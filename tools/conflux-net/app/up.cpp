// conflux-net up: keys, torrcs and test files, then every process, then
// the checks that the network works, in the order that makes each one
// quick: relays listening, a consensus listing every relay, each bridge
// serving its descriptor, and only then the proxies (so their first
// directory fetch already succeeds), until each logs "Bootstrapped 100%".
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <thread>

#include "conflux/net/asio.hpp"
#include "conflux/net/clock.hpp"
#include "conflux/netspec/emulation.hpp"
#include "conflux/netspec/network_file.hpp"
#include "conflux/netspec/test_files.hpp"
#include "conflux/netspec/torrc.hpp"
#include "locate.hpp"
#include "netns.hpp"
#include "processes.hpp"
#include "readiness.hpp"
#include "up.hpp"

namespace conflux::netapp {

namespace fs = std::filesystem;
namespace asio = net::asio;
using namespace std::chrono_literals;
using netspec::Role;

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_interrupt(int) { g_interrupted = 1; }

constexpr int kStartAttempts = 3;
constexpr std::chrono::milliseconds kStopGrace{10000};

}  // namespace

int Up::run() {
  const auto t0 = std::chrono::steady_clock::now();
  if (!load_spec() || !find_programs() || !prepare_dir()) return 1;
  if (!generate_files() || !make_keys() || !write_bandwidth_files()) return 1;

  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  ::sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  ::sigaction(SIGHUP, &sa, nullptr);

  const auto deadline = std::chrono::steady_clock::now() + opt_.timeout;
  for (int attempt = 1;; ++attempt) {
    auto failure = start_network(deadline);
    if (!failure) break;
    stop_all();
    if (failure->port_taken && attempt < kStartAttempts && !g_interrupted) {
      std::printf("conflux-net: a port was taken before %s could bind it; starting again on other ports\n",
                  failure->process.c_str());
      continue;
    }
    report_failure(*failure);
    remove_namespaces(info_.namespaces);
    info_.state = "failed";
    (void)save_info();
    return 1;
  }
  info_.state = "ready";
  if (!save_info()) return 1;
  print_summary(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return 0;
}

std::pair<fs::path, std::vector<std::string>> Up::command_of(const Proc& p) const {
  switch (p.plan.role) {
    case Role::Router:
      return {programs_.self, {"router", "--config", (dir_ / netspec::kEmulationFileName).string()}};
    case Role::FileServer: {
      if (spec_.emulation)  // one origin: its own address (validate_spec allows no more)
        return {programs_.self, {"serve-files", "--root", (dir_ / netspec::kFilesDirName).string(), "--listen",
                                 p.plan.address + ":" + std::to_string(p.plan.ports.http_port)}};
      // 127.0.0.1:PORT,127.0.0.2:PORT,...: one origin per address.
      std::string listen;
      for (unsigned i = 1; i <= spec_.file_origins; ++i)
        listen += (i > 1 ? ",127.0.0." : "127.0.0.") + std::to_string(i) + ":" +
                  std::to_string(p.plan.ports.http_port);
      return {programs_.self, {"serve-files", "--root", (dir_ / netspec::kFilesDirName).string(), "--listen", listen}};
    }
    case Role::Proxy:
      if (p.plan.stock_tor) return {spec_.tor, {"-f", p.paths.torrc.string()}};
      return {programs_.proxy, {"-f", p.paths.torrc.string()}};
    default:
      if (p.plan.stock_tor) return {spec_.tor, {"-f", p.paths.torrc.string()}};
      return {programs_.relay, {"-f", p.paths.torrc.string()}};
  }
}

std::optional<Failure> Up::spawn(Proc& p) {
  std::error_code ec;
  // Logs start empty: lines from an earlier attempt must not count.
  fs::remove(p.paths.log, ec);
  // Nor a bridge line naming an earlier attempt's port.
  if (p.plan.role == Role::Bridge) fs::remove(p.paths.data_dir / "bridgelines", ec);
  // Nor the router's "ready".
  if (p.plan.role == Role::Router) fs::remove(p.paths.output, ec);
  p.bridge_line.clear();
  fs::create_directories(p.paths.dir, ec);
  auto [binary, args] = command_of(p);
  auto s = spawn_detached(binary, args, p.paths.output, p.netns);
  if (!s) return Failure{p.plan.name, s.error(), false};
  p.spawned = *s;
  if (!save_info()) return Failure{"", "cannot write " + (dir_ / netspec::kNetworkFileName).string(), false};
  return std::nullopt;
}

std::optional<Failure> Up::start_network(std::chrono::steady_clock::time_point deadline) {
  if (!assign_ports() || !write_torrcs(false)) return Failure{"", "see above", false};
  ReadinessInputs in;
  in.deadline = deadline;
  in.interrupted = &g_interrupted;
  for (const auto& p : procs_) {
    if (p.plan.role == Role::Authority) {
      in.authority_dirs.emplace_back(asio::ip::make_address_v4(p.plan.address), p.plan.ports.dir_port);
      in.tor_authorities.push_back(p.v3ident_raw);
    }
    if (p.plan.role == Role::FileServer) in.file_port = p.plan.ports.http_port;
  }
  for (auto& p : procs_) {
    if (p.plan.role == Role::Proxy) continue;
    if (auto f = spawn(p)) return f;
    if (p.plan.role == Role::Router)
      if (auto f = set_up_links(p, deadline)) return f;
  }
  for (auto& p : procs_) {
    if (!p.spawned) continue;
    in.watched.push_back(watched_of(p));
  }
  const auto t_started = std::chrono::steady_clock::now();
  if (auto f = wait_for_network(io_, clock_, in)) return f;
  const auto t_network = std::chrono::steady_clock::now();
  network_seconds_ = std::chrono::duration<double>(t_network - t_started).count();
  if (auto f = read_bridge_lines(deadline)) return f;
  if (!write_torrcs(true)) return Failure{"", "see above", false};

  bool any_proxy = false;
  for (auto& p : procs_) {
    if (p.plan.role != Role::Proxy || !p.plan.start) continue;
    if (auto f = spawn(p)) return f;
    in.watched.push_back(watched_of(p));
    any_proxy = true;
  }
  if (any_proxy)
    if (auto f = wait_for_proxies(io_, in)) return f;
  proxy_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_network).count();
  return std::nullopt;
}

// Each transport bridge's line from its DataDirectory/bridgelines, waited
// for until `deadline` (its transport reports within a second or two).
std::optional<Failure> Up::read_bridge_lines(std::chrono::steady_clock::time_point deadline) {
  for (auto& p : procs_) {
    if (p.plan.role != Role::Bridge || p.plan.transport.empty()) continue;
    const auto file = p.paths.data_dir / "bridgelines";
    for (;;) {
      std::ifstream in(file, std::ios::binary);
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      const auto& id = p.rsa_fingerprint;
      if (auto line = netspec::transport_bridge_line(text, p.plan.transport, id)) {
        p.bridge_line = *line;
        break;
      }
      if (g_interrupted) return Failure{"", "interrupted", false};
      if (std::chrono::steady_clock::now() > deadline)
        return Failure{p.plan.name, "no " + p.plan.transport + " bridge line in " + file.string() +
                                        " (its transport did not start: see its notice.log)", false};
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  return std::nullopt;
}

// Once the router has made its devices: the namespaces, addresses and
// routes, so the processes started next find their addresses there.
std::optional<Failure> Up::set_up_links(const Proc& router, std::chrono::steady_clock::time_point deadline) {
  while (read_file(router.paths.output, 4096).find("ready") == std::string::npos) {
    if (!is_same_process(router.spawned->pid, router.spawned->start_time) || g_interrupted ||
        std::chrono::steady_clock::now() > deadline) {
      (void)reap_if_ended(router.spawned->pid);
      return Failure{router.plan.name, "did not make its devices: see " + router.paths.output.string(), false};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (auto e = set_up_hosts(*emulation_)) return Failure{router.plan.name, *e, false};
  return std::nullopt;
}

Watched Up::watched_of(const Proc& p) const {
  Watched w;
  w.name = p.plan.name;
  w.role = p.plan.role;
  w.pid = p.spawned->pid;
  w.start_time = p.spawned->start_time;
  w.log = p.paths.log;
  w.output = p.paths.output;
  w.data_dir = p.paths.data_dir;
  w.identity = p.id;
  w.rsa_fingerprint = p.rsa_id;
  w.ports = p.plan.ports;
  if (!p.plan.address.empty()) w.address = asio::ip::make_address_v4(p.plan.address);
  w.stock_tor = p.plan.stock_tor;
  return w;
}

void Up::stop_all() {
  std::vector<StopTarget> targets;
  for (auto it = procs_.rbegin(); it != procs_.rend(); ++it)
    if (it->spawned) targets.push_back({it->plan.name, it->spawned->pid, it->spawned->start_time});
  (void)stop_processes(targets, kStopGrace);
  for (auto& p : procs_) p.spawned.reset();
}

bool Up::save_info() {
  info_.dir = dir_.string();
  if (info_.created == 0) info_.created = clock_.unix_seconds();
  info_.up_pid = ::getpid();
  info_.processes.clear();
  info_.proxy.reset();
  std::string file_base;
  for (const auto& p : procs_) {
    netspec::ProcessRecord r;
    r.name = p.plan.name;
    r.role = p.plan.role;
    r.started = p.spawned.has_value();
    r.pid = p.spawned ? p.spawned->pid : 0;
    r.start_time = p.spawned ? p.spawned->start_time : 0;
    auto [binary, args] = command_of(p);
    r.binary = binary.string();
    r.args = args;
    r.ports = p.plan.ports;
    r.identity = p.identity;
    r.rsa_fingerprint = p.rsa_fingerprint;
    if (p.plan.stock_tor) r.implementation = "tor";
    r.dir = p.paths.dir.string();
    if (p.plan.role != Role::FileServer) {
      r.torrc = p.paths.torrc.string();
      r.data_dir = p.paths.data_dir.string();
      r.log = p.paths.log.string();
    }
    r.output = p.paths.output.string();
    r.address = p.plan.address;
    r.netns = p.netns;
    info_.processes.push_back(std::move(r));
    // The first started proxy with a MetricsPort (ours): `status` reads it.
    if (p.plan.role == Role::Proxy && p.plan.start && !p.plan.stock_tor && !info_.proxy)
      info_.proxy = netspec::ProxyAddresses{p.plan.name, p.plan.address + ":" + std::to_string(p.plan.ports.socks_port),
                                            "http://" + p.plan.address + ":" +
                                                std::to_string(p.plan.ports.metrics_port) + "/metrics"};
    if (p.plan.role == Role::FileServer)
      file_base = "http://" + p.plan.address + ":" + std::to_string(p.plan.ports.http_port) + "/";
  }
  info_.file_server = file_base;
  info_.file_origins.clear();
  for (const auto& p : procs_)
    if (p.plan.role == Role::FileServer && spec_.emulation) info_.file_origins.push_back(file_base);
  for (const auto& p : procs_)
    if (p.plan.role == Role::FileServer && !spec_.emulation)
      for (unsigned i = 1; i <= spec_.file_origins; ++i)
        info_.file_origins.push_back("http://127.0.0." + std::to_string(i) + ":" +
                                     std::to_string(p.plan.ports.http_port) + "/");
  std::vector<netspec::AuthorityRef> auths;
  for (const auto& p : procs_)
    if (p.plan.role == Role::Authority)
      auths.push_back(
          {p.plan.name, p.plan.ports.or_port, p.plan.ports.dir_port, p.v3ident, p.rsa_fingerprint, p.plan.address});
  info_.tor_dir_authorities = netspec::tor_dir_authority_lines(auths);
  info_.files.clear();
  for (const auto& f : files_) info_.files.push_back({f.name, f.size, file_base + f.name, f.sha256});
  return write_file_atomically(dir_ / netspec::kNetworkFileName, netspec::encode_network(info_));
}

void Up::report_failure(const Failure& f) {
  std::fprintf(stderr, "conflux-net: up failed: %s%s%s\n", f.process.empty() ? "" : f.process.c_str(),
               f.process.empty() ? "" : ": ", f.message.c_str());
  for (const auto& p : procs_) {
    if (p.plan.name != f.process) continue;
    for (const auto& file : {p.paths.log, p.paths.output}) {
      const auto tail = tail_lines(file, 15);
      if (tail.empty()) continue;
      std::fprintf(stderr, "---- last lines of %s ----\n%s", file.c_str(), tail.c_str());
      if (tail.back() != '\n') std::fputc('\n', stderr);
    }
  }
  std::fprintf(stderr, "conflux-net: stopped every process it had started; logs are in %s\n", dir_.c_str());
}

void Up::print_summary(double seconds) {
  std::size_t relays = 0, exits = 0, bridges = 0, authorities = 0, proxies = 0;
  for (const auto& p : procs_) {
    if (!p.spawned) continue;
    relays += p.plan.role == Role::Relay || p.plan.role == Role::Exit;
    exits += p.plan.role == Role::Exit;
    bridges += p.plan.role == Role::Bridge;
    authorities += p.plan.role == Role::Authority;
    proxies += p.plan.role == Role::Proxy;
  }
  std::printf("conflux-net: network up in %.1f s: %s, %s (%zu exits), %s, %s, a file server\n", seconds,
              plural(authorities, "authority", "authorities").c_str(), plural(relays, "relay", "relays").c_str(),
              exits, plural(bridges, "bridge", "bridges").c_str(), plural(proxies, "proxy", "proxies").c_str());
  // Where the time went: the consensus waits for the authority's next
  // interval boundary (ConsensusInterval), the proxy for its bootstrap.
  std::printf("  timing       preparation %.1f s, relays in the consensus %.1f s, proxy bootstrap %.1f s\n",
              seconds - network_seconds_ - proxy_seconds_, network_seconds_, proxy_seconds_);
  if (info_.proxy) std::printf("  SOCKS proxy  %s   (metrics %s)\n", info_.proxy->socks.c_str(), info_.proxy->metrics.c_str());
  std::printf("  files        %s", info_.file_server.c_str());
  for (const auto& f : files_) std::printf(" %s", f.name.c_str());
  std::printf("\n");
  if (info_.proxy && !info_.files.empty()) {
    const auto& f = info_.files.size() > 1 ? info_.files[1] : info_.files[0];
    std::printf("  try          curl --socks5-hostname %s -o /tmp/%s %s\n", info_.proxy->socks.c_str(),
                f.name.c_str(), f.url.c_str());
  }
  for (const auto& p : procs_)
    if (p.plan.role == Role::Proxy && !p.plan.start)
      std::printf("  not started  %s: %s -f %s\n", p.plan.name.c_str(),
                  programs_.proxy.empty() ? "conflux-proxy" : programs_.proxy.c_str(), p.paths.torrc.c_str());
  std::printf("  details      %s\n", (dir_ / netspec::kNetworkFileName).c_str());
  std::printf("  status/stop  conflux-net status --dir %s  /  conflux-net down --dir %s\n", dir_.c_str(), dir_.c_str());
}

bool Up::fail_plain(const std::string& message) {
  std::fprintf(stderr, "conflux-net: %s\n", message.c_str());
  return false;
}

int run_up(const UpOptions& options) { return Up(options).run(); }

}  // namespace conflux::netapp
