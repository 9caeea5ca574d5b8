// The values with a syntax of their own in conflux-proxy's torrc: SocksPort
// lines, Bridge lines, ConfluxClientUX.
#include <algorithm>
#include <cctype>
#include <span>

#include "conflux/bytes/hex.hpp"
#include "conflux/config/proxy_options.hpp"
#include "shown_value.hpp"

namespace conflux::config {
namespace {

bool is_hex_fingerprint(std::string_view s) noexcept {
  return s.size() == 40 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
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

namespace {

// The identity word: tor's RSA fingerprint, with tor's errors for a bad
// one. Our Ed25519 identity retired with the JSON directory.
std::optional<std::string> bridge_identity(BridgeLine& out, std::string_view word) {
  if (word.size() == 41 && word.front() == '$') word.remove_prefix(1);
  if (is_hex_fingerprint(word)) {
    auto raw = bytes::from_hex(word);
    RsaId id{};
    std::copy(raw->begin(), raw->end(), id.begin());
    out.rsa_fingerprint = id;
    return std::nullopt;
  }
  if (word.size() == 40) return std::string("Unable to decode Bridge key digest.");
  if (parse_ed25519_id(word))
    return std::string("tor's form only (the bridge's RSA fingerprint, 40 hex digits); our form with an "
                       "Ed25519 identity retired");
  return std::string("Key digest for Bridge is wrong length (40 hex digits for its RSA fingerprint).");
}

// After the address: the identity and, with a transport, its k=v arguments.
ValueResult<BridgeLine> bridge_identity_and_args(BridgeLine out, std::span<const std::string_view> w) {
  std::size_t i = 0;
  std::string id_word;
  if (out.transport.empty() && w.size() > 1) {
    // tor joins what follows the address: a fingerprint written in groups.
    for (auto part : w) id_word += part;
    if (is_hex_fingerprint(id_word) || (id_word.size() == 41 && id_word.front() == '$'))
      i = w.size();
    else
      id_word.clear();
  }
  if (id_word.empty() && i < w.size() && !(!out.transport.empty() && is_key_value(w[i]))) id_word = w[i++];
  if (id_word.empty())
    return Unexpected{std::string("the bridge's identity is missing after ADDRESS:PORT (its RSA fingerprint, "
                                  "40 hex digits)")};
  if (auto bad = bridge_identity(out, id_word)) return Unexpected{*bad};
  for (; i < w.size(); ++i) {
    if (out.transport.empty()) return Unexpected{"unexpected '" + shown(w[i]) + "' after the identity"};
    if (!is_key_value(w[i])) return Unexpected{"'" + shown(w[i]) + "' is not a k=v item"};
    out.args.push_back(split_key_value(w[i]));
  }
  if (transport_args_bytes(out.args) > kMaxTransportArgsBytes)
    return Unexpected{"SOCKS arguments can't be more than " + std::to_string(kMaxTransportArgsBytes) + " bytes (" +
                      std::to_string(transport_args_bytes(out.args)) + ")"};
  return out;
}

}  // namespace

ValueResult<BridgeLine> parse_bridge_line(std::string_view text) {
  auto w = split_words(text);
  if (w.empty())
    return Unexpected{std::string("Too few arguments to Bridge line ([TRANSPORT] ADDRESS:PORT ID [K=V...])")};
  BridgeLine out;
  std::size_t i = 0;
  if (is_transport_name(w[0])) {
    out.transport = std::string(w[0]);
    if (++i == w.size()) return Unexpected{std::string("Too few items to Bridge line (ADDRESS:PORT after the transport)")};
  }
  auto addr = parse_addr_port(w[i]);
  if (!addr) return Unexpected{addr.error()};
  out.address = *addr;
  return bridge_identity_and_args(std::move(out), std::span<const std::string_view>(w).subspan(i + 1));
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
