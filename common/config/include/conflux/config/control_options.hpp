#pragma once
// The control-port options both programs take, as tor names them
// (docs/CONTROL.md): ControlPort, ControlPortWriteToFile,
// CookieAuthentication, CookieAuthFile, HashedControlPassword. The rows that
// parse them are control_option_rows.hpp's, in both option tables.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/config/address.hpp"
#include "conflux/config/values.hpp"

namespace conflux::config {

// "ControlSocket PATH [GroupWritable] [WorldWritable] [RelaxDirModeCheck]"
// (tor's; flags any case); "0" opens none.
struct ControlSocketLine {
  std::string path;
  bool group_writable = false;
  bool world_writable = false;
  bool relax_dir_mode_check = false;
  bool operator==(const ControlSocketLine&) const = default;
};

struct ControlOptions {
  std::vector<PortConfig> ports;            // ControlPort; address defaults to 127.0.0.1
  std::vector<ControlSocketLine> sockets;   // ControlSocket
  std::string port_write_to_file;           // ControlPortWriteToFile: "PORT=127.0.0.1:N" lines
  bool cookie_authentication = false;       // CookieAuthentication
  std::string cookie_auth_file;             // CookieAuthFile; empty = DataDirectory/control_auth_cookie
  std::vector<std::string> hashed_passwords;  // HashedControlPassword, repeatable
  std::string config_file;                  // not an option: the torrc read (GETINFO config-file); empty: none
  std::string defaults_file;                // not an option: --defaults-torrc's file (SAVECONF leaves its lines out)
  std::string version;                      // not an option: GETINFO version, set by the program

  [[nodiscard]] bool enabled() const noexcept {
    for (const auto& p : ports)
      if (p.enabled()) return true;
    return !sockets.empty();
  }
};

// "ControlPort [ADDR:]PORT|auto" (no flags); 0 is a PortConfig that is not enabled.
[[nodiscard]] ValueResult<PortConfig> parse_control_port(std::string_view text);
// One ControlSocket value; nullopt for "0". The path must be absolute.
[[nodiscard]] ValueResult<std::optional<ControlSocketLine>> parse_control_socket(std::string_view text);
// tor --hash-password's form: "16:" and 58 hex digits (salt, count byte, SHA-1).
[[nodiscard]] ValueResult<std::string> parse_hashed_control_password(std::string_view text);

}  // namespace conflux::config
