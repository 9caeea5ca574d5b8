#pragma once
// What conflux-gui hands its conflux-proxy, as Tor Browser hands tor its
// settings. The app's defaults torrc (rewritten at each start, never saved by
// SAVECONF): a control port on 127.0.0.1 with a cookie, its port written to a
// file, any free SOCKS port, the network held (DisableNetwork 1), and the
// lines of --defaults-torrc. The user's choices (bridges, Conflux) go over the
// ControlPort as one SETCONF, which SAVECONF writes to the proxy's own torrc,
// read again at the next start. No Qt here.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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

// The defaults torrc: the app's lines, then `extra_defaults` (the text of the
// app's --defaults-torrc, such as a test network's DirAuthority lines).
[[nodiscard]] std::string proxy_defaults_torrc(const ProxyPaths& p, std::string_view extra_defaults);

// The proxy's torrc before its first SAVECONF: tor's header alone (a file
// SAVECONF replaces without keeping a backup).
[[nodiscard]] std::string empty_saved_torrc();

// "SETCONF UseBridges=1 Bridge=\"...\" ... ConfluxNumLegs=N": every option
// the connect page decides, so what the torrc held before is replaced.
[[nodiscard]] std::string settings_setconf(const ProxySettings& s);

// A value quoted as the control protocol's QuotedString (backslash escapes,
// control characters as \n \r \t \ooo, as tor writes them).
[[nodiscard]] std::string control_quoted(std::string_view value);

// The settings a torrc written by SAVECONF holds (Bridge, UseBridges,
// ConfluxEnabled, ConfluxNumLegs); nullopt when `text` has no Bridge line.
[[nodiscard]] std::optional<ProxySettings> settings_from_torrc(std::string_view text);

}  // namespace conflux::gui
