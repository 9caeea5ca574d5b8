#pragma once
// The network namespaces of an emulated network (docs/CONFLUX-NET.md,
// "Emulated networks"), made and removed with ip(8), as an administrator
// would: `ip netns add` leaves /run/netns/NAME, which spawn_detached enters
// with setns(2), and which outlives every process in it until `ip netns del`.
#include <optional>
#include <string>
#include <vector>

#include "conflux/netspec/emulation.hpp"

namespace conflux::netapp {

// Runs ip with `args` and waits (at most 10 s); nullopt on success, else
// what it printed.
[[nodiscard]] std::optional<std::string> run_ip(const std::vector<std::string>& args);

// Makes each host's namespace (removing a leftover of the same name first),
// moves its device there, gives it the host's address in the /24 and brings
// it and lo up, every device with the config's MTU; the machine's device
// gets .254 here. The router must be
// running (its devices exist). nullopt on success, else what failed.
[[nodiscard]] std::optional<std::string> set_up_hosts(const netspec::RouterConfig& config);

// `ip netns del` each name that is conflux-net's ("cfx-..."); the others are
// left alone, whatever a damaged network.json says.
void remove_namespaces(const std::vector<std::string>& names);

}  // namespace conflux::netapp
