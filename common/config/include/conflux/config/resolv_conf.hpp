#pragma once
// The nameservers of a resolv.conf, for tor's ServerDNSResolvConfFile.
// c-ares reads resolv.conf itself but ignores a port after the address; tor's
// resolver (libevent's evdns) accepts "nameserver 127.0.0.1:5353", so we read
// the nameserver lines ourselves and hand c-ares the list. Other lines
// (search, domain, options, sortlist) are ignored, as tor ignores search
// domains unless ServerDNSSearchDomains.
#include <string>
#include <string_view>
#include <vector>

#include "conflux/bytes/result.hpp"
#include "conflux/config/address.hpp"
#include "conflux/config/error.hpp"
#include "conflux/config/file_source.hpp"

namespace conflux::config {

struct ResolvConf {
  std::vector<AddrPort> nameservers;  // port 53 when the line gives none
  bool operator==(const ResolvConf&) const = default;
};

// "nameserver ADDR", "nameserver ADDR:PORT", "nameserver [V6]:PORT"; '#' and
// ';' start comments. A nameserver line that does not parse is skipped, as
// resolvers do; at most kMaxNameservers are kept.
inline constexpr std::size_t kMaxNameservers = 16;
[[nodiscard]] ResolvConf parse_resolv_conf(std::string_view text);

// The file tor's resolver reads when ServerDNSResolvConfFile is unset.
inline constexpr const char* kSystemResolvConf = "/etc/resolv.conf";

struct ResolverNameservers {
  std::vector<AddrPort> nameservers;
  std::vector<ConfigError> warnings;
  bool operator==(const ResolverNameservers&) const = default;
};

// The exit resolver's nameservers. `configured` is ServerDNSResolvConfFile
// (empty: unset). A file the operator named must be readable and name a
// nameserver, or the error says why (a typo there would leave the exit with
// no resolver). Unset, `system_file` is read; when it is missing, unreadable,
// empty or names no nameserver, tor's resolver falls back to 127.0.0.1 with
// a warning (dns.c, configure_nameservers), and so does this.
[[nodiscard]] Result<ResolverNameservers, ConfigError> resolver_nameservers(
    const std::string& configured, const FileSource& files, const std::string& system_file = kSystemResolvConf);

}  // namespace conflux::config
