#pragma once
// Pluggable-transport lines as tor parses them (config.c's
// pt_parse_transport_line, parse_bridge_line's k=v arguments,
// get_bindaddr_from_transport_listen_line,
// get_options_from_transport_options_line):
//   ClientTransportPlugin / ServerTransportPlugin TRANSPORT[,TRANSPORT...] exec PATH [ARGS...]
//   ServerTransportListenAddr TRANSPORT IP:PORT
//   ServerTransportOptions TRANSPORT K=V [K=V...]
// Only managed transports ("exec"); tor's external ones (socks4/socks5/proxy)
// are refused with a reason.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "conflux/config/address.hpp"
#include "conflux/config/values.hpp"

namespace conflux::config {

using TransportArgs = std::vector<std::pair<std::string, std::string>>;

struct TransportPluginLine {
  std::vector<std::string> transports;  // "obfs4", ...
  std::string path;                     // what exec launches
  std::vector<std::string> args;
  bool operator==(const TransportPluginLine&) const = default;
};
[[nodiscard]] ValueResult<TransportPluginLine> parse_client_transport_plugin(std::string_view text);
[[nodiscard]] ValueResult<TransportPluginLine> parse_server_transport_plugin(std::string_view text);

struct TransportListenAddr {
  std::string transport;
  AddrPort address;
  bool operator==(const TransportListenAddr&) const = default;
};
[[nodiscard]] ValueResult<TransportListenAddr> parse_transport_listen_addr(std::string_view text);

struct TransportOptionsLine {
  std::string transport;
  TransportArgs args;
  bool operator==(const TransportOptionsLine&) const = default;
};
[[nodiscard]] ValueResult<TransportOptionsLine> parse_transport_options(std::string_view text);

// tor's string_is_C_identifier: a transport name.
[[nodiscard]] bool is_transport_name(std::string_view s) noexcept;
// tor's string_is_key_value: at least "k=", split at the first '='.
[[nodiscard]] bool is_key_value(std::string_view s) noexcept;
[[nodiscard]] std::pair<std::string, std::string> split_key_value(std::string_view s);
// The bytes a client's k=v arguments take as the transport's SOCKS
// credentials (pt-spec 3.5: "k=v;k=v" with '\\', ';' and '=' escaped);
// tor refuses lines above kMaxTransportArgsBytes (MAX_SOCKS5_AUTH_SIZE_TOTAL).
inline constexpr std::size_t kMaxTransportArgsBytes = 510;
[[nodiscard]] std::size_t transport_args_bytes(const TransportArgs& args) noexcept;

}  // namespace conflux::config
