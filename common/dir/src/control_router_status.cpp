#include "conflux/dir/control_router_status.hpp"

#include <array>

#include "conflux/bytes/base64.hpp"
#include "conflux/dir/fields.hpp"

namespace conflux::dir {
namespace {

std::string base64_unpadded(bytes::ByteSpan b) {
  std::string s = bytes::base64_encode(b);
  while (!s.empty() && s.back() == '=') s.pop_back();
  return s;
}

std::string flags_line(const Flags& f) {
  std::string s = "s";  // alphabetical, as tor writes them
  if (f.exit) s += " Exit";
  if (f.fast) s += " Fast";
  if (f.guard) s += " Guard";
  if (f.running) s += " Running";
  if (f.stable) s += " Stable";
  if (f.v2dir) s += " V2Dir";
  if (f.valid) s += " Valid";
  return s + "\n";
}

}  // namespace

std::string control_router_status(const RouterEntry& r) {
  if (!r.rsa_identity) return {};
  // A microdesc consensus names no descriptor digest and tor writes zeros;
  // without a descriptor it writes the time 2038-01-01 00:00:00.
  const std::array<std::uint8_t, 20> no_digest{};
  std::string out = "r " + r.nickname + " " + base64_unpadded(*r.rsa_identity) + " " + base64_unpadded(no_digest) +
                    " 2038-01-01 00:00:00 " + format_ipv4(r.ipv4) + " " + std::to_string(r.or_port) + " " +
                    std::to_string(r.dir_port) + "\n";
  if (r.ipv6) out += "a [" + format_ipv6(*r.ipv6) + "]:" + std::to_string(r.or_port) + "\n";
  return out + flags_line(r.flags) + "w Bandwidth=" + std::to_string(r.bandwidth) + "\n";
}

std::string control_router_statuses(const ConsensusBody& body) {
  std::string out;
  for (const auto& r : body.routers) out += control_router_status(r);
  return out;
}

std::optional<std::string> control_router_status_by_id(const ConsensusBody& body, std::string_view fp) {
  if (fp.starts_with('$')) fp.remove_prefix(1);
  const auto id = parse_hex_fingerprint(fp);
  if (!id) return std::nullopt;
  for (const auto& r : body.routers)
    if (r.rsa_identity == id) return control_router_status(r);
  return std::nullopt;
}

std::optional<std::string> control_router_status_by_name(const ConsensusBody& body, std::string_view nickname) {
  for (const auto& r : body.routers)
    if (r.nickname == nickname && r.rsa_identity) return control_router_status(r);
  return std::nullopt;
}

}  // namespace conflux::dir
