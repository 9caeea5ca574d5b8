#pragma once
// From a spec to the processes conflux-net runs: their names, roles, start
// order and ports, and where each one's files live under the network
// directory:
//   DIR/network.json        what `up` started (network_file.hpp)
//   DIR/spec.json           the spec, every field written out
//   DIR/files/              the test files and index.html the file server serves
//   DIR/NAME/torrc          one per relay or proxy
//   DIR/NAME/data/          its DataDirectory (keys, state)
//   DIR/NAME/notice.log     its "Log notice file"
//   DIR/NAME/output.log     its stdout and stderr
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/netspec/spec.hpp"

namespace conflux::netspec {

// Router: `conflux-net router`, the emulated network's links (only with the
// spec's "emulation").
enum class Role : std::uint8_t { FileServer, Authority, Relay, Exit, Bridge, Proxy, Router };
[[nodiscard]] std::string_view to_string(Role r) noexcept;
[[nodiscard]] std::optional<Role> role_from_string(std::string_view s) noexcept;
// Roles whose program is conflux-relay.
[[nodiscard]] bool is_relay_role(Role r) noexcept;

// 0 = the process has no such port.
struct Ports {
  std::uint16_t or_port = 0;
  std::uint16_t dir_port = 0;
  std::uint16_t socks_port = 0;
  std::uint16_t metrics_port = 0;
  std::uint16_t http_port = 0;
  std::uint16_t pt_port = 0;  // an obfs4 bridge's transport listener (ServerTransportListenAddr)
  std::uint16_t control_port = 0;  // a stock tor relay's or proxy's ControlPort (cookie authentication)
  bool operator==(const Ports&) const = default;
};

struct ProcessPlan {
  std::string name;
  Role role = Role::Relay;
  bool start = true;           // false: a proxy whose torrc is written but which is not started
  std::string bandwidth_rate;  // relays and bridges; empty = default
  bool use_bridges = false;    // proxies
  bool conflux = true;         // proxies
  Ports ports;
  std::string transport{};     // bridges: "" or "obfs4"
  // Where it listens: 127.0.0.1, or in an emulated network its own address
  // (in its own network namespace; the router has none).
  std::string address = "127.0.0.1";
  bool stock_tor = false;      // run by stock tor (NetSpec::implementation), not conflux-relay or conflux-proxy
  std::vector<std::string> options{};  // proxies: the spec's extra torrc lines
  bool operator==(const ProcessPlan&) const = default;
};

inline constexpr std::string_view kFileServerName = "fileserver";
inline constexpr std::string_view kRouterName = "router";
inline constexpr std::string_view kFilesDirName = "files";
inline constexpr std::string_view kNetworkFileName = "network.json";
inline constexpr std::string_view kSpecFileName = "spec.json";

// Start order: the router (emulated networks only), the file server,
// authorities, relays, exits, bridges, proxies (each group in spec order).
// Names: router, fileserver, auth1.., relay1.., exit1.., and the spec's names
// for bridges and proxies. In an emulated network the processes after the
// router get the subnet's .1, .2, ... in this order.
[[nodiscard]] std::vector<ProcessPlan> plan_processes(const NetSpec& spec);

// How many ports each process listens on: an authority ORPort and DirPort,
// a relay ORPort, a bridge ORPort and DirPort (clients fetch its descriptor
// there) and its transport's listener if it has one, a proxy SocksPort and MetricsPort, the file server one;
// a stock tor relay an ORPort and a ControlPort.
[[nodiscard]] std::size_t ports_needed(const std::vector<ProcessPlan>& plan);
// Hands out `ports` (at least ports_needed(plan) of them) in plan order.
void assign_ports(std::vector<ProcessPlan>& plan, std::span<const std::uint16_t> ports);

struct ProcessPaths {
  std::filesystem::path dir, torrc, data_dir, log, output;
};
[[nodiscard]] ProcessPaths paths_for(const std::filesystem::path& net_dir, std::string_view name);

}  // namespace conflux::netspec
