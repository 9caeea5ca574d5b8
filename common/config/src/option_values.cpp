#include "conflux/config/option_values.hpp"

#include <algorithm>
#include <vector>

#include "conflux/bytes/base64.hpp"
#include "conflux/bytes/hex.hpp"
#include "conflux/config/torrc_parser.hpp"
#include "shown_value.hpp"

namespace conflux::config {
namespace {

bool is_alnum(char c) noexcept {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

bool is_hex(std::string_view s) noexcept {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  });
}

}  // namespace

bool is_valid_nickname(std::string_view name) noexcept {
  return !name.empty() && name.size() <= kMaxNicknameLen && std::all_of(name.begin(), name.end(), is_alnum);
}

ValueResult<std::string> parse_nickname(std::string_view text) {
  if (!is_valid_nickname(text)) return Unexpected{"invalid nickname '" + shown(text) + "' (1-19 letters and digits)"};
  return std::string(text);
}

ValueResult<Ed25519Id> parse_ed25519_id(std::string_view text) {
  Ed25519Id id{};
  if (text.size() == 64 && is_hex(text)) {
    auto raw = bytes::from_hex(text);
    if (!raw || raw->size() != id.size()) return Unexpected{std::string("invalid hex identity")};
    std::copy(raw->begin(), raw->end(), id.begin());
    return id;
  }
  if (text.size() != 43)
    return Unexpected{std::string("an Ed25519 identity is 64 hex digits or 43 base64 characters")};
  auto raw = bytes::base64_decode(text);
  // 43 characters carry 258 bits: a canonical encoding zeroes the spare two.
  if (!raw || raw->size() != id.size())
    return Unexpected{std::string("invalid or non-canonical base64 Ed25519 identity")};
  std::copy(raw->begin(), raw->end(), id.begin());
  return id;
}

std::string ed25519_id_to_base64(const Ed25519Id& id) { return bytes::base64_encode(id); }

ValueResult<Severity> parse_severity(std::string_view text) {
  static constexpr std::pair<std::string_view, Severity> kNames[] = {
      {"debug", Severity::Debug}, {"info", Severity::Info}, {"notice", Severity::Notice},
      {"warn", Severity::Warn},   {"err", Severity::Err},
  };
  for (const auto& [name, sev] : kNames)
    if (key_equals(name, text)) return sev;
  return Unexpected{"unknown log severity '" + shown(text) + "' (debug, info, notice, warn, err)"};
}

std::string_view to_string(Severity s) noexcept {
  switch (s) {
    case Severity::Debug: return "debug";
    case Severity::Info: return "info";
    case Severity::Notice: return "notice";
    case Severity::Warn: return "warn";
    case Severity::Err: return "err";
  }
  return "notice";
}

ValueResult<LogSpec> parse_log(std::string_view text) {
  auto w = split_words(text);
  if (w.size() < 2) return Unexpected{std::string("expected SEVERITY[-SEVERITY] stdout|stderr|syslog|file PATH")};
  LogSpec spec;
  std::string_view range = w[0];
  if (range.find('[') != std::string_view::npos)
    return Unexpected{std::string("per-domain log severities ([domain]severity) are not supported")};
  auto dash = range.find('-');
  auto lo = parse_severity(range.substr(0, dash));
  if (!lo) return Unexpected{lo.error()};
  spec.min = *lo;
  spec.max = Severity::Err;
  if (dash != std::string_view::npos) {
    auto hi = parse_severity(range.substr(dash + 1));
    if (!hi) return Unexpected{hi.error()};
    if (*hi < *lo) return Unexpected{"log severity range '" + shown(range) + "' goes from high to low"};
    spec.max = *hi;
  }
  auto dest = w[1];
  if (key_equals(dest, "file")) {
    // The path is the rest of the line, so it may contain blanks.
    auto at = static_cast<std::size_t>(dest.data() + dest.size() - text.data());
    auto path = text.substr(at);
    while (!path.empty() && (path.front() == ' ' || path.front() == '\t')) path.remove_prefix(1);
    if (path.empty()) return Unexpected{std::string("Log ... file needs a path")};
    spec.dest = LogSpec::Dest::File;
    spec.path = std::string(path);
    return spec;
  }
  if (w.size() != 2) return Unexpected{"unexpected text after '" + shown(dest) + "'"};
  if (key_equals(dest, "stdout")) spec.dest = LogSpec::Dest::Stdout;
  else if (key_equals(dest, "stderr")) spec.dest = LogSpec::Dest::Stderr;
  else if (key_equals(dest, "syslog")) spec.dest = LogSpec::Dest::Syslog;
  else return Unexpected{"unknown log destination '" + shown(dest) + "' (stdout, stderr, syslog, file PATH)"};
  return spec;
}

namespace {

std::optional<RsaId> rsa_id_of(std::string_view hex) {
  if (hex.size() != 40 || !is_hex(hex)) return std::nullopt;
  auto b = bytes::from_hex(hex);
  if (!b) return std::nullopt;
  RsaId id{};
  std::copy(b->begin(), b->end(), id.begin());
  return id;
}

// One "key[=value]" flag of a DirAuthority line.
std::optional<std::string> apply_flag(std::string_view word, DirAuthorityLine& line, std::optional<RsaId>& v3ident) {
  const auto eq = word.find('=');
  const auto key = word.substr(0, eq);
  const auto value = eq == std::string_view::npos ? std::string_view{} : word.substr(eq + 1);
  if (key_equals(key, "orport") && eq != std::string_view::npos) {
    if (line.or_port) return std::string("orport= given twice");
    auto port = parse_port(value);
    if (!port) return port.error();
    line.or_port = *port;
  } else if (key_equals(key, "v3ident") && eq != std::string_view::npos) {
    if (v3ident) return std::string("v3ident= given twice");
    v3ident = rsa_id_of(value);
    if (!v3ident) return "v3ident= wants 40 hex digits, not '" + shown(value) + "'";
  } else if (eq == std::string_view::npos && (key_equals(key, "no-v2") || key_equals(key, "hs") ||
                                              key_equals(key, "bridge") || key_equals(key, "upload") ||
                                              key_equals(key, "download") || key_equals(key, "vote"))) {
    // tor's roles for the authority; a client only fetches from it.
  } else if (eq != std::string_view::npos && (key_equals(key, "ipv6") || key_equals(key, "weight"))) {
    // an IPv6 ORPort, a fetch weight: not used
  } else {
    return "unknown DirAuthority flag '" + shown(key) + "'";
  }
  return std::nullopt;
}

}  // namespace

ValueResult<DirAuthorityLine> parse_dir_authority(std::string_view text) {
  auto w = split_words(text);
  if (w.size() < 3)
    return Unexpected{std::string("expected NICKNAME [orport=PORT] v3ident=HEX40 ADDRESS:DIRPORT RSA_FINGERPRINT")};
  DirAuthorityLine line;
  std::optional<RsaId> v3ident;
  auto nick = parse_nickname(w[0]);
  if (!nick) return Unexpected{nick.error()};
  line.nickname = std::move(*nick);
  // Flags up to the address (the first word with ':' and no '='); the
  // fingerprint is what follows it.
  std::size_t i = 1;
  for (; i < w.size() && !(w[i].find(':') != std::string_view::npos && w[i].find('=') == std::string_view::npos);
       ++i) {
    if (auto bad = apply_flag(w[i], line, v3ident)) return Unexpected{*bad};
  }
  if (i + 1 >= w.size()) return Unexpected{std::string("expected ADDRESS:DIRPORT and a fingerprint after the flags")};
  auto dir = parse_addr_port(w[i]);
  if (!dir) return Unexpected{dir.error()};
  line.dir = *dir;
  if (!v3ident)
    return Unexpected{std::string("tor's form only (v3ident=HEX40 ADDRESS:DIRPORT RSA_FINGERPRINT); our form with an "
                                  "Ed25519 identity retired")};
  line.v3ident = *v3ident;
  std::string fingerprint;
  for (std::size_t k = i + 1; k < w.size(); ++k) fingerprint += w[k];
  auto rsa = rsa_id_of(fingerprint);
  if (!rsa) return Unexpected{"expected the authority's 40-hex-digit RSA fingerprint, not '" + shown(fingerprint) + "'"};
  line.rsa_identity = *rsa;
  return line;
}

ValueResult<std::string> parse_family_member(std::string_view text) {
  if (is_valid_nickname(text) || parse_ed25519_id(text)) return std::string(text);
  if (text.size() >= 41 && text.front() == '$' && is_hex(text.substr(1, 40))) {
    auto rest = text.substr(41);
    if (rest.empty() || ((rest.front() == '=' || rest.front() == '~') && is_valid_nickname(rest.substr(1))))
      return std::string(text);
  }
  return Unexpected{"invalid MyFamily member '" + shown(text) +
                    "' (a nickname, $RSA_FINGERPRINT or an Ed25519 identity)"};
}

}  // namespace conflux::config
