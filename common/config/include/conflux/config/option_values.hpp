#pragma once
// Values of the relay options that have their own little syntax: nicknames,
// Log lines, DirAuthority lines, Ed25519 identities, family members.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "conflux/config/address.hpp"
#include "conflux/config/values.hpp"

namespace conflux::config {

// 1-19 characters [A-Za-z0-9] (tor's MAX_NICKNAME_LEN).
inline constexpr std::size_t kMaxNicknameLen = 19;
[[nodiscard]] bool is_valid_nickname(std::string_view name) noexcept;
[[nodiscard]] ValueResult<std::string> parse_nickname(std::string_view text);

// A 32-byte Ed25519 identity: 64 hex digits, or 43 characters of standard
// base64 without padding (tor's usual spelling of Ed25519 keys; the unused
// low bits of the last character must be zero).
using Ed25519Id = std::array<std::uint8_t, 32>;
[[nodiscard]] ValueResult<Ed25519Id> parse_ed25519_id(std::string_view text);
// The canonical base64 spelling (43 characters), as parse_ed25519_id accepts.
[[nodiscard]] std::string ed25519_id_to_base64(const Ed25519Id& id);

// Log lines, as tor: "SEVERITY[-SEVERITY] stdout|stderr|syslog" or
// "SEVERITY[-SEVERITY] file PATH". A single severity means "that and above".
// tor's per-domain form ("[handshake]debug") is not supported.
enum class Severity : std::uint8_t { Debug, Info, Notice, Warn, Err };
[[nodiscard]] ValueResult<Severity> parse_severity(std::string_view text);
[[nodiscard]] std::string_view to_string(Severity s) noexcept;

struct LogSpec {
  enum class Dest : std::uint8_t { Stdout, Stderr, Syslog, File };
  Severity min = Severity::Notice;
  Severity max = Severity::Err;
  Dest dest = Dest::Stdout;
  std::string path;  // Dest::File only
  [[nodiscard]] bool accepts(Severity s) const noexcept { return s >= min && s <= max; }
  bool operator==(const LogSpec&) const = default;
};
[[nodiscard]] ValueResult<LogSpec> parse_log(std::string_view text);

// A DirAuthority line in tor's form (a tor network's authorities; ours
// write tor's documents too):
//   DirAuthority NICKNAME [orport=PORT] [no-v2] [ipv6=[ADDR]:PORT] ...
//                v3ident=HEX40 ADDRESS:DIRPORT FINGERPRINT
// FINGERPRINT is the authority relay's RSA identity, 40 hex digits,
// optionally in groups of four separated by spaces (as tor prints it);
// tor's other flags (no-v2, hs, bridge, weight=, upload, download, vote,
// ipv6=) are accepted and not used. v3ident= is required, as tor requires it
// of every authority but a bridge authority (which we do not support); our
// former form, with an Ed25519 identity and no v3ident=, retired with the
// JSON directory. Either is an error at its line.
// ADDRESS is IPv4 or [IPv6].
using RsaId = std::array<std::uint8_t, 20>;
struct DirAuthorityLine {
  std::string nickname;
  std::optional<std::uint16_t> or_port;
  AddrPort dir;
  RsaId v3ident{};       // its authority identity key's SHA-1
  RsaId rsa_identity{};  // the authority relay's fingerprint
  bool operator==(const DirAuthorityLine&) const = default;
};
[[nodiscard]] ValueResult<DirAuthorityLine> parse_dir_authority(std::string_view text);

// One MyFamily member: a nickname, "$" + 40 hex digits (tor's RSA
// fingerprint, optionally followed by "=nick" or "~nick"), or an Ed25519
// identity as parse_ed25519_id. Kept as written.
[[nodiscard]] ValueResult<std::string> parse_family_member(std::string_view text);

}  // namespace conflux::config
