#include "conflux/config/resolv_conf.hpp"

#include <string>

namespace conflux::config {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// "1.2.3.4", "::1", "1.2.3.4:53", "[::1]:53".
std::optional<AddrPort> nameserver(std::string_view word) {
  if (auto ip = parse_ip(word)) return AddrPort{*ip, 53};
  if (auto ap = parse_addr_port(word)) return *ap;
  return std::nullopt;
}

}  // namespace

ResolvConf parse_resolv_conf(std::string_view text) {
  ResolvConf out;
  while (!text.empty()) {
    const auto eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    if (const auto hash = line.find_first_of("#;"); hash != std::string_view::npos) line = line.substr(0, hash);
    line = trim(line);
    constexpr std::string_view kKey = "nameserver";
    if (line.substr(0, kKey.size()) != kKey || line.size() == kKey.size() || !is_space(line[kKey.size()])) continue;
    std::string_view rest = trim(line.substr(kKey.size()));
    rest = rest.substr(0, rest.find_first_of(" \t"));  // one address per line
    if (auto ns = nameserver(rest); ns && out.nameservers.size() < kMaxNameservers) out.nameservers.push_back(*ns);
  }
  return out;
}

namespace {

ConfigError fallback_warning(const std::string& file, const std::string& why) {
  return {file, 0, "Could not read your DNS config (" + why +
                       "); please investigate your DNS configuration. Meanwhile, falling back to local DNS at "
                       "127.0.0.1."};
}

}  // namespace

Result<ResolverNameservers, ConfigError> resolver_nameservers(const std::string& configured, const FileSource& files,
                                                              const std::string& system_file) {
  const bool named = !configured.empty();
  const std::string& file = named ? configured : system_file;
  ResolverNameservers out;
  auto text = files.read_file(file);
  if (!text) {
    if (named) return Unexpected{ConfigError{file, 0, "ServerDNSResolvConfFile: " + text.error()}};
    const bool missing = files.kind(file) == PathKind::Missing;
    out.warnings.push_back(fallback_warning(file, missing ? std::string("no such file") : text.error()));
  } else if (auto parsed = parse_resolv_conf(*text); !parsed.nameservers.empty()) {
    out.nameservers = std::move(parsed.nameservers);
    return out;
  } else if (named) {
    return Unexpected{ConfigError{file, 0, "ServerDNSResolvConfFile: no usable 'nameserver' line"}};
  } else {
    out.warnings.push_back(fallback_warning(file, text->empty() ? "the file is empty" : "no usable 'nameserver' line"));
  }
  IpAddress local;
  local.bytes[0] = 127;
  local.bytes[3] = 1;
  out.nameservers.push_back(AddrPort{local, 53});
  return out;
}

}  // namespace conflux::config
