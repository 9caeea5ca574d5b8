#pragma once
// One `conflux-net up` (up.cpp): the network's processes and what `up`
// knows of each. up_prepare.cpp makes the spec, directory, files, keys,
// ports and torrcs; up.cpp starts the processes, waits for each check and
// writes network.json.
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "conflux/net/asio.hpp"
#include "conflux/net/clock.hpp"
#include "conflux/netspec/emulation.hpp"
#include "conflux/netspec/network_file.hpp"
#include "conflux/netspec/test_files.hpp"
#include "conflux/netspec/torrc.hpp"
#include "locate.hpp"
#include "processes.hpp"
#include "readiness.hpp"

namespace conflux::netapp {

// "N relays" / "1 relay".
inline std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

class Up {
 public:
  explicit Up(const UpOptions& o) : opt_(o) {}

  int run();

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

  bool load_spec();
  bool find_programs();
  bool prepare_dir();
  bool generate_files();

  // Keys first, so every identity (the authorities' for DirAuthority lines,
  // the bridges' for Bridge lines, everyone's for the consensus check) is
  // known before anything starts.
  bool make_keys();
  bool write_bandwidth_files();

  // Stock tor makes its own keys (stock_tor_keys.hpp).
  bool make_stock_tor_keys(Proc& p);

  // ---- ports and torrcs ----

  bool assign_ports();
  std::vector<netspec::ProcessPlan> plans() const;
  static netspec::BridgeRef bridge_ref(const Proc& p);

  // The proxies' torrcs are written once the transport bridges have printed
  // their lines (the cert= comes from their obfs4proxy).
  bool write_torrcs(bool proxies);

  // ---- processes ----

  std::pair<std::filesystem::path, std::vector<std::string>> command_of(const Proc& p) const;
  std::optional<Failure> spawn(Proc& p);
  std::optional<Failure> start_network(std::chrono::steady_clock::time_point deadline);

  // Each transport bridge's line from its DataDirectory/bridgelines, waited
  // for until `deadline` (its transport reports within a second or two).
  std::optional<Failure> read_bridge_lines(std::chrono::steady_clock::time_point deadline);

  // Once the router has made its devices: the namespaces, addresses and
  // routes, so the processes started next find their addresses there.
  std::optional<Failure> set_up_links(const Proc& router, std::chrono::steady_clock::time_point deadline);
  Watched watched_of(const Proc& p) const;
  void stop_all();

  // ---- reporting ----

  bool save_info();
  void report_failure(const Failure& f);
  void print_summary(double seconds);
  bool fail_plain(const std::string& message);

  UpOptions opt_;
  netspec::NetSpec spec_;
  Programs programs_;
  std::filesystem::path dir_;
  int lock_fd_ = -1;
  std::vector<Proc> procs_;
  std::optional<netspec::RouterConfig> emulation_;  // the spec's "emulation"
  std::vector<netspec::IndexEntry> files_;
  netspec::NetworkInfo info_;
  net::SystemClock clock_;
  net::asio::io_context io_;
  double network_seconds_ = 0, proxy_seconds_ = 0;  // the last attempt's waits
};

}  // namespace conflux::netapp
