// conflux-net up: keys, torrcs and test files, then every process, then
// the checks that the network works, in the order that makes each one
// quick: relays listening, a consensus listing every relay, each bridge
// serving its descriptor, and only then the proxies (so their first
// directory fetch already succeeds), until each logs "Bootstrapped 100%".
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <thread>

#include "commands.hpp"
#include "conflux/bytes/hex.hpp"
#include "conflux/dirnet/consensus_fetcher.hpp"
#include "conflux/dirnet/tor_authority_keys.hpp"
#include "conflux/keys/fingerprint.hpp"
#include "conflux/keys/relay_keys.hpp"
#include "conflux/net/asio.hpp"
#include "conflux/net/clock.hpp"
#include "conflux/net/listen_ports.hpp"
#include "conflux/netspec/emulation.hpp"
#include "conflux/netspec/network_file.hpp"
#include "conflux/netspec/test_files.hpp"
#include "conflux/netspec/torrc.hpp"
#include "locate.hpp"
#include "netns.hpp"
#include "processes.hpp"
#include "readiness.hpp"
#include "stock_tor_keys.hpp"

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

bool plain_name(const std::string& n) {
  return !n.empty() && n != "." && n != ".." && n.find('/') == std::string::npos;
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

class Up {
 public:
  explicit Up(const UpOptions& o) : opt_(o) {}

  int run() {
    const auto t0 = std::chrono::steady_clock::now();
    if (!load_spec() || !find_programs() || !prepare_dir()) return 1;
    if (!generate_files() || !make_keys()) return 1;

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

 private:
  struct Proc {
    netspec::ProcessPlan plan;
    netspec::ProcessPaths paths;
    std::string identity;  // relays: base64
    crypto::Ed25519Public id{};
    std::string rsa_fingerprint;  // relays: hex, their RSA identity's SHA-1
    std::string v3ident;          // authorities: hex, their tor authority identity
    std::optional<Spawned> spawned;
    std::string bridge_line{};    // transport bridges: their line, once they wrote it
    crypto::RsaFingerprint rsa_id{}, v3ident_raw{};  // rsa_fingerprint and v3ident, raw
    std::string netns{};          // emulated networks: its network namespace
  };

  // ---- preparation ----

  bool load_spec() {
    if (opt_.spec_file.empty()) {
      spec_ = netspec::default_spec();
    } else {
      std::ifstream in(opt_.spec_file, std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "conflux-net: cannot read %s\n", opt_.spec_file.c_str());
        return false;
      }
      const auto text = read_file(opt_.spec_file, netspec::kMaxSpecSize + 1);
      auto parsed = netspec::parse_spec(text);
      if (!parsed) {
        std::fprintf(stderr, "conflux-net: %s\n", parsed.error().to_string(opt_.spec_file).c_str());
        return false;
      }
      spec_ = std::move(*parsed);
    }
    for (auto& p : netspec::plan_processes(spec_)) procs_.push_back({std::move(p), {}, {}, {}, {}, {}, {}});
    if (spec_.emulation) {
      emulation_ = netspec::router_config(*spec_.emulation, plans(), static_cast<std::uint32_t>(::getpid()));
      for (const auto& h : emulation_->hosts) {
        if (!h.netns.empty()) info_.namespaces.push_back(h.netns);
        for (auto& p : procs_)
          if (p.plan.name == h.name) p.netns = h.netns;
      }
    }
    return true;
  }

  bool find_programs() {
    std::string error;
    auto p = locate_programs(opt_.bin_dir, error);
    if (!p) {
      std::fprintf(stderr, "conflux-net: %s\n", error.c_str());
      return false;
    }
    programs_ = std::move(*p);
    for (const auto& p2 : procs_) {
      if (p2.plan.stock_tor && ::access(spec_.tor.c_str(), X_OK) != 0) {
        std::fprintf(stderr, "conflux-net: %s runs on stock tor, and %s is not a program (apt-get install tor, or "
                             "name it with \"tor\" in the spec)\n", p2.plan.name.c_str(), spec_.tor.c_str());
        return false;
      }
    }
    for (const auto& x : spec_.proxies) {
      if (x.start && !netspec::runs_stock_tor(spec_, x.name) && programs_.proxy.empty()) {
        std::fprintf(stderr,
                     "conflux-net: conflux-proxy not found, and the spec starts the proxy '%s' (build it, name its "
                     "directory with --bin-dir, or use a spec with \"proxies\": [])\n",
                     x.name.c_str());
        return false;
      }
    }
    return true;
  }

  bool prepare_dir() {
    std::error_code ec;
    dir_ = fs::absolute(opt_.dir, ec).lexically_normal();
    if (!dir_.has_filename()) dir_ = dir_.parent_path();  // "run/net/" -> "run/net"
    fs::create_directories(dir_, ec);
    if (ec) return fail_plain("cannot create " + dir_.string() + ": " + ec.message());
    // One `up` at a time per directory (held until this process exits).
    lock_fd_ = ::open((dir_ / ".lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    if (lock_fd_ < 0 || ::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0)
      return fail_plain("another conflux-net is working on " + dir_.string());

    const auto network_file = dir_ / netspec::kNetworkFileName;
    const bool has_network_file = fs::exists(network_file, ec);
    const bool ours = has_network_file || fs::exists(dir_ / netspec::kSpecFileName, ec);
    std::vector<std::string> old_names;
    if (has_network_file) {
      auto old = netspec::decode_network(read_file(network_file));
      if (!old)
        return fail_plain(network_file.string() + " is unreadable (" + old.error() +
                          "); if no network runs from it, remove it");
      std::size_t alive = 0;
      for (const auto& p : old->processes) {
        old_names.push_back(p.name);
        if (p.started && is_same_process(static_cast<pid_t>(p.pid), p.start_time)) ++alive;
      }
      if (alive > 0)
        return fail_plain("a network is running in " + dir_.string() + " (" + plural(alive, "process", "processes") +
                          "); stop it first: conflux-net down --dir " + dir_.string());
    } else if (!ours) {
      for (const auto& e : fs::directory_iterator(dir_, ec))
        if (e.path().filename() != ".lock")
          return fail_plain(dir_.string() + " is not empty and holds no conflux-net network; use a new directory");
    }
    // A new network every time: no keys, consensus or logs from the last one.
    for (const auto& p : procs_) old_names.push_back(p.plan.name);
    old_names.emplace_back(netspec::kFilesDirName);
    for (const auto& n : old_names)
      if (plain_name(n)) fs::remove_all(dir_ / n, ec);
    fs::remove(network_file, ec);
    if (!write_file_atomically(dir_ / netspec::kSpecFileName, netspec::encode_spec(spec_)))
      return fail_plain("cannot write in " + dir_.string());
    if (emulation_ && !write_file_atomically(dir_ / netspec::kEmulationFileName, netspec::encode_router_config(*emulation_)))
      return fail_plain("cannot write in " + dir_.string());
    for (auto& p : procs_) {
      p.paths = netspec::paths_for(dir_, p.plan.name);
      if (p.plan.role == Role::FileServer) continue;
      fs::create_directories(p.paths.dir, ec);
      if (!ec) fs::permissions(p.paths.dir, fs::perms::owner_all, ec);
      if (ec) return fail_plain("cannot create " + p.paths.dir.string() + ": " + ec.message());
    }
    return true;
  }

  bool generate_files() {
    const auto root = dir_ / netspec::kFilesDirName;
    std::error_code ec;
    fs::create_directories(root, ec);
    if (ec) return fail_plain("cannot create " + root.string() + ": " + ec.message());
    std::vector<netspec::IndexEntry> index;
    for (const auto& f : spec_.files) {
      std::ofstream out(root / f.name, std::ios::binary | std::ios::trunc);
      const auto sha = netspec::generate_test_file(spec_.file_seed, f, [&](std::span<const std::uint8_t> c) {
        out.write(reinterpret_cast<const char*>(c.data()), static_cast<std::streamsize>(c.size()));
      });
      out.flush();
      if (!out) return fail_plain("cannot write " + (root / f.name).string());
      index.push_back({f.name, f.size, sha});
    }
    std::ofstream(root / "index.html", std::ios::binary) << netspec::index_html(index);
    files_ = std::move(index);
    return true;
  }

  // Keys first, so every identity (the authorities' for DirAuthority lines,
  // the bridges' for Bridge lines, everyone's for the consensus check) is
  // known before anything starts.
  bool make_keys() {
    for (auto& p : procs_) {
      if (!netspec::is_relay_role(p.plan.role)) continue;
      if (p.plan.stock_tor) {
        if (!make_stock_tor_keys(p)) return false;
        continue;
      }
      auto k = keys::load_or_create_relay_keys(p.paths.data_dir, clock_.unix_seconds());
      if (!k) return fail_plain("cannot make the keys of " + p.plan.name + " in " + p.paths.data_dir.string());
      p.id = k->identity();
      p.identity = keys::identity_base64(p.id);
      p.rsa_id = k->rsa_fingerprint();
      p.rsa_fingerprint = bytes::to_hex(p.rsa_id, true);
      if (p.plan.role != Role::Authority) continue;
      auto t = dirnet::load_or_create_tor_authority_keys(p.paths.data_dir, clock_.unix_seconds());
      if (!t) return fail_plain("cannot make the tor authority keys of " + p.plan.name + ": " + t.error().message());
      p.v3ident_raw = t->v3ident();
      p.v3ident = bytes::to_hex(p.v3ident_raw, true);
    }
    return true;
  }

  // Stock tor makes its own keys (stock_tor_keys.hpp).
  bool make_stock_tor_keys(Proc& p) {
    auto made = netapp::make_stock_tor_keys(spec_.tor, p.plan.name, p.paths.data_dir, p.paths.output);
    if (!made) return fail_plain(made.error());
    p.rsa_id = made->rsa_id;
    p.rsa_fingerprint = bytes::to_hex(p.rsa_id, true);
    p.id = made->ed25519;
    p.identity = keys::identity_base64(p.id);
    return true;
  }

  // ---- ports and torrcs ----

  bool assign_ports() {
    auto plan = plans();
    std::string error;
    const auto ports = net::pick_listen_ports(io_, netspec::ports_needed(plan), error);
    if (ports.empty() && !error.empty()) return fail_plain(error);
    netspec::assign_ports(plan, ports);
    for (std::size_t i = 0; i < procs_.size(); ++i) procs_[i].plan.ports = plan[i].ports;
    return true;
  }

  std::vector<netspec::ProcessPlan> plans() const {
    std::vector<netspec::ProcessPlan> out;
    for (const auto& p : procs_) out.push_back(p.plan);
    return out;
  }

  static netspec::BridgeRef bridge_ref(const Proc& p) {
    return {p.plan.ports.or_port, p.bridge_line, p.rsa_fingerprint, p.plan.address};
  }

  // The proxies' torrcs are written once the transport bridges have printed
  // their lines (the cert= comes from their obfs4proxy).
  bool write_torrcs(bool proxies) {
    netspec::TorrcInputs in;
    in.obfs4proxy = spec_.obfs4proxy;
    in.net_dir = dir_;
    in.consensus_interval = spec_.consensus_interval;
    in.exit_policy = spec_.exit_policy;
    in.relay_options = spec_.relay_options;
    in.guard_relays = spec_.guard_relays;
    for (const auto& p : procs_) {
      in.stock_relays = in.stock_relays || (p.plan.stock_tor && netspec::is_relay_role(p.plan.role));
      if (p.plan.role == Role::Authority)
        in.authorities.push_back(
            {p.plan.name, p.plan.ports.or_port, p.plan.ports.dir_port, p.v3ident, p.rsa_fingerprint, p.plan.address});
      if (p.plan.role == Role::Bridge) in.bridges.push_back(bridge_ref(p));
      if (p.plan.role == Role::FileServer) in.file_port = p.plan.ports.http_port;
    }
    for (const auto& p : procs_) {
      if (p.plan.role == Role::FileServer || (p.plan.role == Role::Proxy) != proxies) continue;
      if (!write_file_atomically(p.paths.torrc, netspec::render_torrc(p.plan, in)))
        return fail_plain("cannot write " + p.paths.torrc.string());
    }
    return true;
  }

  // ---- processes ----

  std::pair<fs::path, std::vector<std::string>> command_of(const Proc& p) const {
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

  std::optional<Failure> spawn(Proc& p) {
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

  std::optional<Failure> start_network(std::chrono::steady_clock::time_point deadline) {
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
  std::optional<Failure> read_bridge_lines(std::chrono::steady_clock::time_point deadline) {
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
  std::optional<Failure> set_up_links(const Proc& router, std::chrono::steady_clock::time_point deadline) {
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

  Watched watched_of(const Proc& p) const {
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

  void stop_all() {
    std::vector<StopTarget> targets;
    for (auto it = procs_.rbegin(); it != procs_.rend(); ++it)
      if (it->spawned) targets.push_back({it->plan.name, it->spawned->pid, it->spawned->start_time});
    (void)stop_processes(targets, kStopGrace);
    for (auto& p : procs_) p.spawned.reset();
  }

  // ---- reporting ----

  bool save_info() {
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

  void report_failure(const Failure& f) {
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

  void print_summary(double seconds) {
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

  bool fail_plain(const std::string& message) {
    std::fprintf(stderr, "conflux-net: %s\n", message.c_str());
    return false;
  }

  UpOptions opt_;
  netspec::NetSpec spec_;
  Programs programs_;
  fs::path dir_;
  int lock_fd_ = -1;
  std::vector<Proc> procs_;
  std::optional<netspec::RouterConfig> emulation_;  // the spec's "emulation"
  std::vector<netspec::IndexEntry> files_;
  netspec::NetworkInfo info_;
  net::SystemClock clock_;
  asio::io_context io_;
  double network_seconds_ = 0, proxy_seconds_ = 0;  // the last attempt's waits
};

}  // namespace

int run_up(const UpOptions& options) { return Up(options).run(); }

}  // namespace conflux::netapp
