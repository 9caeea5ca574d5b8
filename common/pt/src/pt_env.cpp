#include "conflux/pt/pt_env.hpp"

namespace conflux::pt {

namespace {

std::string joined(const std::vector<std::string>& v, char sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : std::string(1, sep)) + s;
  return out;
}

void escape_into(std::string& out, const std::string& s) {
  for (const char c : s) {
    if (c == '\\' || c == ';' || c == '=') out.push_back('\\');
    out.push_back(c);
  }
}

}  // namespace

std::vector<std::pair<std::string, std::string>> pt_client_env(const PtClientLaunch& l) {
  std::vector<std::pair<std::string, std::string>> env{
      {"TOR_PT_MANAGED_TRANSPORT_VER", "1"},
      {"TOR_PT_STATE_LOCATION", l.state_dir},
      {"TOR_PT_EXIT_ON_STDIN_CLOSE", "1"},
      {"TOR_PT_CLIENT_TRANSPORTS", joined(l.transports, ',')},
  };
  if (l.proxy) env.emplace_back("TOR_PT_PROXY", *l.proxy);
  return env;
}

std::vector<std::pair<std::string, std::string>> pt_server_env(const PtServerLaunch& l) {
  std::vector<std::pair<std::string, std::string>> env{
      {"TOR_PT_MANAGED_TRANSPORT_VER", "1"},
      {"TOR_PT_STATE_LOCATION", l.state_dir},
      {"TOR_PT_EXIT_ON_STDIN_CLOSE", "1"},
      {"TOR_PT_SERVER_TRANSPORTS", joined(l.transports, ',')},
      {"TOR_PT_ORPORT", l.orport},
  };
  if (l.ext_orport) env.emplace_back("TOR_PT_EXTENDED_SERVER_PORT", *l.ext_orport);
  if (l.auth_cookie_file) env.emplace_back("TOR_PT_AUTH_COOKIE_FILE", *l.auth_cookie_file);
  std::vector<std::string> bind;
  for (const auto& [t, at] : l.bind) bind.push_back(t + "-" + at);
  if (!bind.empty()) env.emplace_back("TOR_PT_SERVER_BINDADDR", joined(bind, ','));
  std::vector<std::string> options;
  for (const auto& [t, kvs] : l.options) {
    // Each k=v of a transport becomes "transport:k=v", separated by ';'.
    std::size_t at = 0;
    while (at <= kvs.size()) {
      auto semi = kvs.find(';', at);
      if (semi == std::string::npos) semi = kvs.size();
      if (semi > at) options.push_back(t + ":" + kvs.substr(at, semi - at));
      at = semi + 1;
    }
  }
  if (!options.empty()) env.emplace_back("TOR_PT_SERVER_TRANSPORT_OPTIONS", joined(options, ';'));
  return env;
}

std::optional<SocksCredentials> pt_socks_credentials(const std::vector<std::pair<std::string, std::string>>& args) {
  std::string s;
  for (const auto& [k, v] : args) {
    if (!s.empty()) s.push_back(';');
    escape_into(s, k);
    s.push_back('=');
    escape_into(s, v);
  }
  if (s.empty() || s.size() > 510) return std::nullopt;
  if (s.size() <= 255) return SocksCredentials{s, std::string(1, '\0')};
  return SocksCredentials{s.substr(0, 255), s.substr(255)};
}

}  // namespace conflux::pt
