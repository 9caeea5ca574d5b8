#pragma once
// The nameservers of a resolv.conf, for tor's ServerDNSResolvConfFile.
// c-ares reads resolv.conf itself but ignores a port after the address; tor's
// resolver (libevent's evdns) accepts "nameserver 127.0.0.1:5353", so we read
// the nameserver lines ourselves and hand c-ares the list. Other lines
// (search, domain, options, sortlist) are ignored, as tor ignores search
// domains unless ServerDNSSearchDomains.
#include <string_view>
#include <vector>

#include "conflux/config/address.hpp"

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

}  // namespace conflux::config
