#pragma once
// An emulated network's plumbing, decided from the spec (docs/CONFLUX-NET.md,
// "Emulated networks"): each process's network namespace, the router's
// TUN device for it and its link, and DIR/emulation.json, the file the
// router process (`conflux-net router --config FILE`) reads.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/bytes/result.hpp"
#include "conflux/netspec/delay_line.hpp"
#include "conflux/netspec/plan.hpp"
#include "conflux/netspec/spec.hpp"

namespace conflux::netspec {

inline constexpr std::string_view kEmulationFileName = "emulation.json";
inline constexpr std::string_view kMachineHostName = "machine";
inline constexpr std::uint32_t kMachineHost = 254;  // the machine's address in the subnet: .254

struct EmulatedHost {
  std::string name;       // the process's name; kMachineHostName for the machine itself
  std::string device;     // its TUN device (at most 15 bytes)
  std::string netns;      // its network namespace; empty for the machine (the initial namespace)
  std::uint32_t address = 0;  // host byte order
  LinkParams link;
  bool operator==(const EmulatedHost& o) const;
};

struct RouterConfig {
  std::uint32_t subnet = 0;  // the /24's network address, host byte order
  std::uint64_t seed = 1;
  unsigned mtu = 1500;              // every device's
  std::string tcp_congestion_control;  // every namespace's; empty = the machine's default
  std::vector<EmulatedHost> hosts;  // the processes in plan order, then the machine
  bool operator==(const RouterConfig&) const = default;
};

// The router's hosts for `plan` (plan_processes of an emulated spec; the
// router's own entry is skipped). `tag` makes namespace and device names
// unique on the machine (the `up` process's pid): namespaces are
// "cfx-TAG-NAME", devices "cfxTAG-I" and "cfxTAG-m" (TAG is cut to 5 digits
// there, as device names have at most 15 bytes).
[[nodiscard]] RouterConfig router_config(const EmulationSpec& spec, const std::vector<ProcessPlan>& plan,
                                         std::uint32_t tag);

[[nodiscard]] std::string encode_router_config(const RouterConfig& config);
// Strict and bounded, as every reader of a file: hosts 1..255, addresses in
// the subnet and distinct, device names 1-15 bytes without '/', loss in [0, 1].
[[nodiscard]] Result<RouterConfig, std::string> decode_router_config(std::string_view json_text);

}  // namespace conflux::netspec
