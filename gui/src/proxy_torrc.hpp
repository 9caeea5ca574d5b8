#pragma once
// The torrc conflux-gui writes for its conflux-proxy: the user's bridges and
// Conflux choice, and what the app needs to drive the proxy (a control port
// on 127.0.0.1 with a cookie, its port written to a file, any free SOCKS
// port, the app's pid as __OwningControllerProcess). No Qt here.
#include <cstdint>
#include <string>
#include <vector>

namespace conflux::gui {

struct ProxySettings {
  std::vector<std::string> bridges;  // Bridge values, without "Bridge "
  bool conflux = true;               // ConfluxEnabled 1 (else 0)
  std::uint32_t conflux_legs = 2;    // ConfluxNumLegs 2-8
  bool uses_transport = false;       // some bridge is obfs4: ClientTransportPlugin
  std::string obfs4proxy = "/usr/bin/obfs4proxy";
};

struct ProxyPaths {
  std::string data_directory;     // the proxy's DataDirectory
  std::string control_port_file;  // ControlPortWriteToFile
  std::string cookie_file;        // CookieAuthFile
};

[[nodiscard]] std::string proxy_torrc(const ProxySettings& s, const ProxyPaths& p, std::uint32_t owner_pid);

}  // namespace conflux::gui
