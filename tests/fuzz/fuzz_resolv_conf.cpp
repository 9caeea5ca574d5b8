// parse_resolv_conf takes any bytes: it never crashes, keeps at most
// kMaxNameservers, and every nameserver it keeps has a port.
#include <cstdint>
#include <string_view>

#include "conflux/config/resolv_conf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto conf = conflux::config::parse_resolv_conf(text);
  if (conf.nameservers.size() > conflux::config::kMaxNameservers) __builtin_trap();
  for (const auto& ns : conf.nameservers)
    if (ns.port == 0) __builtin_trap();
  return 0;
}
