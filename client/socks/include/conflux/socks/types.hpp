#pragma once
// The values a SOCKS handshake produces (what the client asked for) and the
// reply codes the proxy answers with. Wire formats: RFC 1928 (SOCKS5),
// RFC 1929 (username/password), the SOCKS4 and SOCKS4a protocol documents,
// and Tor's extensions (tor's proposal socks-extensions.txt: RESOLVE 0xF0,
// RESOLVE_PTR 0xF1, credentials as a stream-isolation key).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace conflux::socks {

enum class Version : std::uint8_t { V4, V5 };

// BIND and UDP ASSOCIATE never get this far: the handshake refuses them.
enum class Command : std::uint8_t { Connect, Resolve, ResolvePtr };

using Ipv4 = std::array<std::uint8_t, 4>;
using Ipv6 = std::array<std::uint8_t, 16>;

// A destination or an answer. A hostname is kept as the client sent it: it
// is never resolved locally (the exit does that), which is the point of
// SOCKS4a and SOCKS5 ATYP 3 with Tor.
struct Address {
  std::variant<Ipv4, Ipv6, std::string> value;

  [[nodiscard]] const Ipv4* ipv4() const noexcept { return std::get_if<Ipv4>(&value); }
  [[nodiscard]] const Ipv6* ipv6() const noexcept { return std::get_if<Ipv6>(&value); }
  [[nodiscard]] const std::string* hostname() const noexcept { return std::get_if<std::string>(&value); }
  friend bool operator==(const Address&, const Address&) = default;
};

// A complete, validated request. Guarantees (the handshake checks them):
// - a hostname is 1..255 bytes and passes tor's string_is_valid_dest rules
//   (an IP literal, or labels of [A-Za-z0-9_-] not starting with - or _,
//   one trailing dot allowed);
// - ResolvePtr always carries an IPv4 or IPv6 address (a hostname that is an
//   IP literal is converted);
// - Connect has a nonzero port;
// - username and password are engaged only when non-empty (tor treats an
//   empty field as absent), each at most 255 bytes. SOCKS4's userid is the
//   username.
struct Request {
  Version version = Version::V5;
  Command command = Command::Connect;
  Address address;
  std::uint16_t port = 0;
  std::optional<std::string> username;
  std::optional<std::string> password;
  friend bool operator==(const Request&, const Request&) = default;
};

// SOCKS5 REP codes (RFC 1928 section 6). SOCKS4 has only granted (90) and
// rejected (91): every value but Succeeded becomes 91.
enum class Reply : std::uint8_t {
  Succeeded = 0,
  GeneralFailure = 1,
  NotAllowed = 2,
  NetworkUnreachable = 3,
  HostUnreachable = 4,
  ConnectionRefused = 5,
  TtlExpired = 6,
  CommandNotSupported = 7,
  AddressTypeNotSupported = 8,
};

// For debug logs only (destinations are never logged above debug):
// "1.2.3.4", "[2001:db8::1]", or the hostname with non-printable bytes
// escaped as \xNN.
std::string to_string(const Address& address);

// The stream-isolation key from the credentials, as tor's IsolateSOCKSAuth
// compares them: username and password, an empty field equal to an absent
// one. Two requests may share a circuit only if their keys are equal. The
// encoding is length-prefixed, so ("ab","c") and ("a","bc") differ; no
// credentials give "".
std::string isolation_key(const Request& request);

// Whether tor's string_is_valid_dest accepts `name` (see Request).
bool is_valid_destination(std::string_view name);

// Parses an IPv4 dotted quad or an IPv6 literal (optionally in brackets).
std::optional<Address> parse_ip_literal(std::string_view text);

}  // namespace conflux::socks
