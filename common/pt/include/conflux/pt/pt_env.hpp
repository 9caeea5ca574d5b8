#pragma once
// How a managed transport is launched (pt-spec 3.2) and how a client hands
// it a bridge's arguments (pt-spec 3.5).
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace conflux::pt {

struct PtClientLaunch {
  std::vector<std::string> transports;  // "obfs4", ...
  std::string state_dir;                // DataDirectory/pt_state, as tor's
  std::optional<std::string> proxy;     // TOR_PT_PROXY, e.g. "socks5://127.0.0.1:1080"
};

struct PtServerLaunch {
  std::vector<std::string> transports;
  std::string state_dir;
  std::string orport;                          // "127.0.0.1:9001"
  std::optional<std::string> ext_orport;       // TOR_PT_EXTENDED_SERVER_PORT
  std::optional<std::string> auth_cookie_file; // TOR_PT_AUTH_COOKIE_FILE, with the ExtORPort
  std::map<std::string, std::string> bind;     // transport -> "addr:port" (ServerTransportListenAddr)
  std::map<std::string, std::string> options;  // transport -> "k=v;k=v" (ServerTransportOptions)
};

// The TOR_PT_* variables, to add to the launcher's environment
// (TOR_PT_EXIT_ON_STDIN_CLOSE=1: the transport ends when we do).
[[nodiscard]] std::vector<std::pair<std::string, std::string>> pt_client_env(const PtClientLaunch& l);
[[nodiscard]] std::vector<std::pair<std::string, std::string>> pt_server_env(const PtServerLaunch& l);

// A bridge line's key=value arguments as the SOCKS5 username and password
// (RFC 1929) the transport reads: "k=v;k=v" with '\\', ';' and '=' escaped by
// a backslash; up to 255 bytes go in the username and the password is one
// NUL byte; a longer string continues in the password (at most 255 more).
// Nullopt when there is nothing to send (no arguments: the caller uses no
// authentication) or it does not fit in 510 bytes.
struct SocksCredentials {
  std::string username;
  std::string password;
  friend bool operator==(const SocksCredentials&, const SocksCredentials&) = default;
};
[[nodiscard]] std::optional<SocksCredentials> pt_socks_credentials(
    const std::vector<std::pair<std::string, std::string>>& args);

}  // namespace conflux::pt
