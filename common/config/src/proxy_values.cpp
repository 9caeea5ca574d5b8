// The values with a syntax of their own in conflux-proxy's torrc: SocksPort
// lines, Bridge lines, ConfluxClientUX.
#include <algorithm>

#include "conflux/config/proxy_options.hpp"

namespace conflux::config {
namespace {

std::string shown(std::string_view v) {
  std::string out;
  for (char c : v.substr(0, 40)) out.push_back((c >= 0x20 && c < 0x7f) ? c : '?');
  return out;
}

bool is_hex_fingerprint(std::string_view s) noexcept {
  return s.size() == 40 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
         });
}

// A pluggable-transport name as tor accepts it: a C identifier.
bool looks_like_transport(std::string_view s) noexcept {
  if (s.empty() || (s.front() >= '0' && s.front() <= '9')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

}  // namespace

ValueResult<std::optional<SocksPortConfig>> parse_socks_port(std::string_view text) {
  auto w = split_words(text);
  if (w.empty()) return Unexpected{std::string("missing port")};
  // The address and port part is an ordinary port line without flags.
  auto pc = parse_port_config(w[0], PortFlags::None);
  if (!pc) return Unexpected{pc.error()};
  SocksPortConfig out;
  if (pc->address) out.address = *pc->address;
  out.port = pc->port;
  out.is_auto = pc->is_auto;
  for (std::size_t i = 1; i < w.size(); ++i) {
    auto f = w[i];
    if (key_equals(f, "IsolateSOCKSAuth")) out.isolate_socks_auth = true;
    else if (key_equals(f, "NoIsolateSOCKSAuth")) out.isolate_socks_auth = false;
    else if (key_equals(f, "IsolateDestPort")) out.isolate_dest_port = true;
    else if (key_equals(f, "IsolateDestAddr")) out.isolate_dest_addr = true;
    else
      return Unexpected{"unknown SocksPort flag '" + shown(f) +
                        "' (IsolateSOCKSAuth, NoIsolateSOCKSAuth, IsolateDestPort, IsolateDestAddr)"};
  }
  if (!pc->enabled()) return std::optional<SocksPortConfig>{};
  return std::optional<SocksPortConfig>{out};
}

ValueResult<BridgeLine> parse_bridge_line(std::string_view text) {
  auto w = split_words(text);
  if (w.empty()) return Unexpected{std::string("expected ADDRESS:PORT ED25519_ID")};
  if (w[0].find(':') == std::string_view::npos && looks_like_transport(w[0]))
    return Unexpected{"pluggable transports are not supported ('" + shown(w[0]) + "')"};
  auto addr = parse_addr_port(w[0]);
  if (!addr) return Unexpected{addr.error()};
  if (w.size() < 2) return Unexpected{std::string("the bridge's Ed25519 identity is missing after ADDRESS:PORT")};
  if (is_hex_fingerprint(w[1]))
    return Unexpected{std::string("an RSA fingerprint is not enough: give the bridge's Ed25519 identity "
                                  "(64 hex digits or 43 base64 characters, in the bridge's log)")};
  auto id = parse_ed25519_id(w[1]);
  if (!id) return Unexpected{id.error()};
  if (w.size() > 2) return Unexpected{"unexpected '" + shown(w[2]) + "' after the identity"};
  return BridgeLine{*addr, *id};
}

namespace {
constexpr std::pair<std::string_view, ConfluxUx> kUxNames[] = {
    {"throughput", ConfluxUx::Throughput},
    {"latency", ConfluxUx::Latency},
    {"throughput_lowmem", ConfluxUx::ThroughputLowMem},
    {"latency_lowmem", ConfluxUx::LatencyLowMem},
};
}  // namespace

// Case-sensitive, as tor compares these names with strcmp.
ValueResult<ConfluxUx> parse_conflux_ux(std::string_view text) {
  for (const auto& [name, ux] : kUxNames)
    if (text == name) return ux;
  return Unexpected{"unknown value '" + shown(text) +
                    "' (throughput, latency, throughput_lowmem, latency_lowmem)"};
}

std::string_view to_string(ConfluxUx ux) noexcept {
  for (const auto& [name, u] : kUxNames)
    if (u == ux) return name;
  return "throughput";
}

}  // namespace conflux::config
