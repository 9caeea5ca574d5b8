#include "conflux/config/fallback_dir.hpp"

#include <algorithm>

#include "conflux/bytes/hex.hpp"
#include "conflux/config/torrc_parser.hpp"

namespace conflux::config {
namespace {

std::optional<RsaId> fingerprint_of(std::string_view hex) {
  if (hex.size() != 40) return std::nullopt;
  auto b = bytes::from_hex(hex);
  if (!b || b->size() != 20) return std::nullopt;
  RsaId id{};
  std::copy(b->begin(), b->end(), id.begin());
  return id;
}

// The first word: "ADDRESS" or "ADDRESS:DIRPORT" (IPv4: tor's fallbacks are
// listed by their IPv4 address, IPv6 comes as ipv6=).
std::optional<std::string> apply_address(std::string_view word, FallbackDirLine& line) {
  const auto colon = word.find(':');
  auto ip = parse_ip(word.substr(0, colon));
  if (!ip || !ip->is_v4()) return "expected an IPv4 ADDRESS[:DIRPORT], not '" + std::string(word.substr(0, 48)) + "'";
  line.address = *ip;
  if (colon == std::string_view::npos) return std::nullopt;
  auto port = parse_port(word.substr(colon + 1));
  if (!port) return port.error();
  line.dir_port = *port;
  return std::nullopt;
}

std::optional<std::string> apply_flag(std::string_view word, FallbackDirLine& line, bool& have_or, bool& have_id) {
  const auto eq = word.find('=');
  if (eq == std::string_view::npos) return "unexpected '" + std::string(word.substr(0, 48)) + "'";
  const auto key = word.substr(0, eq);
  const auto value = word.substr(eq + 1);
  if (key_equals(key, "orport") && !have_or) {
    auto port = parse_port(value);
    if (!port) return port.error();
    line.or_port = *port;
    have_or = true;
  } else if (key_equals(key, "id") && !have_id) {
    auto id = fingerprint_of(value);
    if (!id) return "id= wants the relay's 40-hex-digit RSA fingerprint";
    line.rsa_identity = *id;
    have_id = true;
  } else if (key_equals(key, "ipv6") && !line.ipv6_or) {
    auto at = parse_addr_port(value);
    if (!at || at->addr.is_v4()) return "ipv6= wants [IPV6]:PORT";
    line.ipv6_or = *at;
  } else if (key_equals(key, "weight")) {
    // tor's relative fetch weight: we pick uniformly.
  } else {
    return "unknown or repeated FallbackDir flag '" + std::string(key.substr(0, 40)) + "'";
  }
  return std::nullopt;
}

}  // namespace

ValueResult<FallbackDirLine> parse_fallback_dir(std::string_view text) {
  auto w = split_words(text);
  if (w.empty()) return Unexpected{std::string("expected ADDRESS[:DIRPORT] orport=PORT id=FINGERPRINT")};
  FallbackDirLine line;
  if (auto bad = apply_address(w[0], line)) return Unexpected{*bad};
  bool have_or = false, have_id = false;
  for (std::size_t i = 1; i < w.size(); ++i)
    if (auto bad = apply_flag(w[i], line, have_or, have_id)) return Unexpected{*bad};
  if (!have_or || !have_id) return Unexpected{std::string("FallbackDir needs orport= and id=")};
  return line;
}

}  // namespace conflux::config
