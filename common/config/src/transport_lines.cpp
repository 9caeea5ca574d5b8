// Pluggable-transport lines (transport_lines.hpp), with tor's rules and
// tor's reasons where it gives one.
#include "conflux/config/transport_lines.hpp"

#include <algorithm>
#include "shown_value.hpp"

namespace conflux::config {
namespace {

ValueResult<std::vector<std::string>> transport_list(std::string_view field) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= field.size()) {
    auto comma = field.find(',', start);
    auto name = field.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (!name.empty()) {
      if (!is_transport_name(name))
        return Unexpected{"Transport name is not a C identifier (" + shown(name) + ")"};
      out.emplace_back(name);
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (out.empty()) return Unexpected{std::string("no transport name")};
  return out;
}

ValueResult<TransportPluginLine> parse_plugin(std::string_view text, bool server) {
  const std::string kind = server ? "Server" : "Client";
  auto w = split_words(text);
  if (w.size() < 3) return Unexpected{"Too few arguments on " + kind + "TransportPlugin line (TRANSPORT exec PATH [ARGS...])"};
  auto names = transport_list(w[0]);
  if (!names) return Unexpected{names.error()};
  const bool external = server ? w[1] == "proxy" : (w[1] == "socks4" || w[1] == "socks5");
  if (external)
    return Unexpected{"external transports ('" + shown(w[1]) + "') are not supported: use 'exec PATH' (a managed transport)"};
  if (w[1] != "exec") return Unexpected{"Strange " + kind + "TransportPlugin type '" + shown(w[1]) + "'"};
  TransportPluginLine out;
  out.transports = std::move(*names);
  out.path = std::string(w[2]);
  for (std::size_t i = 3; i < w.size(); ++i) out.args.emplace_back(w[i]);
  return out;
}

std::size_t escaped_size(std::string_view s) noexcept {
  return s.size() + static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) {
           return c == '\\' || c == ';' || c == '=';
         }));
}

}  // namespace

bool is_transport_name(std::string_view s) noexcept {
  if (s.empty() || (s.front() >= '0' && s.front() <= '9')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool is_key_value(std::string_view s) noexcept {
  if (s.size() < 2) return false;
  auto eq = s.find('=');
  return eq != std::string_view::npos && eq != 0;
}

std::pair<std::string, std::string> split_key_value(std::string_view s) {
  auto eq = s.find('=');
  if (eq == std::string_view::npos) return {std::string(s), std::string()};
  return {std::string(s.substr(0, eq)), std::string(s.substr(eq + 1))};
}

std::size_t transport_args_bytes(const TransportArgs& args) noexcept {
  std::size_t n = 0;
  for (const auto& [k, v] : args) n += escaped_size(k) + 1 + escaped_size(v);
  return args.empty() ? 0 : n + args.size() - 1;  // the ';' between them
}

ValueResult<TransportPluginLine> parse_client_transport_plugin(std::string_view text) {
  return parse_plugin(text, false);
}

ValueResult<TransportPluginLine> parse_server_transport_plugin(std::string_view text) {
  return parse_plugin(text, true);
}

ValueResult<TransportListenAddr> parse_transport_listen_addr(std::string_view text) {
  auto w = split_words(text);
  if (w.size() != 2)
    return Unexpected{std::string("ServerTransportListenAddr line has the wrong number of arguments (TRANSPORT IP:PORT)")};
  if (!is_transport_name(w[0])) return Unexpected{"Transport name is not a C identifier (" + shown(w[0]) + ")"};
  auto at = parse_addr_port(w[1]);
  if (!at) return Unexpected{at.error()};
  return TransportListenAddr{std::string(w[0]), *at};
}

ValueResult<TransportOptionsLine> parse_transport_options(std::string_view text) {
  auto w = split_words(text);
  if (w.size() < 2)
    return Unexpected{std::string("ServerTransportOptions line has the wrong number of arguments (TRANSPORT K=V...)")};
  if (!is_transport_name(w[0])) return Unexpected{"Transport name is not a C identifier (" + shown(w[0]) + ")"};
  TransportOptionsLine out;
  out.transport = std::string(w[0]);
  for (std::size_t i = 1; i < w.size(); ++i) {
    if (!is_key_value(w[i])) return Unexpected{"'" + shown(w[i]) + "' is not a k=v item"};
    out.args.push_back(split_key_value(w[i]));
  }
  return out;
}

}  // namespace conflux::config
