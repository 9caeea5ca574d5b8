// conflux-net up, before anything starts (up.hpp): the spec, the network's
// directory, the test files, every relay's keys, then ports and torrcs.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "conflux/bytes/hex.hpp"
#include "conflux/dirnet/tor_authority_keys.hpp"
#include "conflux/keys/fingerprint.hpp"
#include "conflux/keys/relay_keys.hpp"
#include "conflux/net/listen_ports.hpp"
#include "conflux/netspec/bandwidth_file.hpp"
#include "stock_tor_keys.hpp"
#include "up.hpp"

namespace conflux::netapp {

namespace fs = std::filesystem;
using netspec::Role;

namespace {

bool plain_name(const std::string& n) {
  return !n.empty() && n != "." && n != ".." && n.find('/') == std::string::npos;
}

}  // namespace

bool Up::load_spec() {
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

bool Up::find_programs() {
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

bool Up::prepare_dir() {
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

bool Up::generate_files() {
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
bool Up::make_keys() {
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

// Once every relay's RSA fingerprint is known: the spec's measurements, one
// copy in each authority's directory (torrc.cpp names it there).
bool Up::write_bandwidth_files() {
  if (!spec_.measured_bandwidths) return true;
  const auto kb = netspec::measured_kb(spec_);
  std::vector<netspec::MeasuredRelay> relays;
  for (const auto& p : procs_) {
    auto it = kb.find(p.plan.name);
    if (it != kb.end() && !p.rsa_fingerprint.empty()) relays.push_back({p.plan.name, p.rsa_fingerprint, it->second});
  }
  const auto text = netspec::render_bandwidth_file(clock_.unix_seconds(), relays);
  for (const auto& p : procs_) {
    if (p.plan.role != Role::Authority) continue;
    const auto path = p.paths.dir / netspec::kBandwidthFileName;
    if (!write_file_atomically(path, text)) return fail_plain("cannot write " + path.string());
  }
  return true;
}

// Stock tor makes its own keys (stock_tor_keys.hpp).
bool Up::make_stock_tor_keys(Proc& p) {
  auto made = netapp::make_stock_tor_keys(spec_.tor, p.plan.name, p.paths.data_dir, p.paths.output);
  if (!made) return fail_plain(made.error());
  p.rsa_id = made->rsa_id;
  p.rsa_fingerprint = bytes::to_hex(p.rsa_id, true);
  p.id = made->ed25519;
  p.identity = keys::identity_base64(p.id);
  return true;
}

bool Up::assign_ports() {
  auto plan = plans();
  std::string error;
  const auto ports = net::pick_listen_ports(io_, netspec::ports_needed(plan), error);
  if (ports.empty() && !error.empty()) return fail_plain(error);
  netspec::assign_ports(plan, ports);
  for (std::size_t i = 0; i < procs_.size(); ++i) procs_[i].plan.ports = plan[i].ports;
  return true;
}

std::vector<netspec::ProcessPlan> Up::plans() const {
  std::vector<netspec::ProcessPlan> out;
  for (const auto& p : procs_) out.push_back(p.plan);
  return out;
}

netspec::BridgeRef Up::bridge_ref(const Proc& p) {
  return {p.plan.ports.or_port, p.bridge_line, p.rsa_fingerprint, p.plan.address};
}

// The proxies' torrcs are written once the transport bridges have printed
// their lines (the cert= comes from their obfs4proxy).
bool Up::write_torrcs(bool proxies) {
  netspec::TorrcInputs in;
  in.obfs4proxy = spec_.obfs4proxy;
  in.net_dir = dir_;
  in.consensus_interval = spec_.consensus_interval;
  in.exit_policy = spec_.exit_policy;
  in.relay_options = spec_.relay_options;
  in.guard_relays = spec_.guard_relays;
  in.log_detail = spec_.log_detail;
  in.bandwidth_file = spec_.measured_bandwidths.has_value();
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

}  // namespace conflux::netapp
