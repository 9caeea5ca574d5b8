// SOCKS5 client messages: method selection (RFC 1928 section 3), RFC 1929
// username/password, and the request (RFC 1928 section 4 plus Tor's
// RESOLVE 0xF0 and RESOLVE_PTR 0xF1).
#include "messages.hpp"

#include "conflux/socks/reply.hpp"

namespace conflux::socks::detail {
namespace {

constexpr std::uint8_t kVersion5 = 5;
constexpr std::uint8_t kAuthVersion = 1;
constexpr std::uint8_t kMethodNoAuth = 0x00;
constexpr std::uint8_t kMethodUserPass = 0x02;
constexpr std::uint8_t kNoAcceptableMethod = 0xff;

constexpr std::uint8_t kCmdConnect = 0x01;
constexpr std::uint8_t kCmdBind = 0x02;
constexpr std::uint8_t kCmdUdpAssociate = 0x03;
constexpr std::uint8_t kCmdResolve = 0xf0;
constexpr std::uint8_t kCmdResolvePtr = 0xf1;

constexpr std::uint8_t kAtypIpv4 = 1;
constexpr std::uint8_t kAtypDomain = 3;
constexpr std::uint8_t kAtypIpv6 = 4;

Outcome reject(Reply code, std::string error) {
  return Outcome::fail(encode_reply(Version::V5, code), std::move(error));
}

}  // namespace

Outcome parse_greeting(bytes::ByteSpan data, Greeting& out) {
  const std::vector<std::uint8_t> refuse{kVersion5, kNoAcceptableMethod};
  Cursor c(data);
  if (!c.has(2)) return Outcome::need_more();
  (void)c.u8();  // the caller dispatched on the version byte
  std::uint8_t n = c.u8();
  // RFC 1928 has no answer for "no methods" but "none acceptable"; tor
  // closes without a reply here.
  if (n == 0) return Outcome::fail(refuse, "socks5: greeting offers no methods");
  if (!c.has(n)) return Outcome::need_more();
  out = {};
  for (std::uint8_t m : c.take(n)) {
    out.no_auth = out.no_auth || m == kMethodNoAuth;
    out.user_pass = out.user_pass || m == kMethodUserPass;
  }
  if (!out.no_auth && !out.user_pass)
    return Outcome::fail(refuse, "socks5: offered methods include neither no-auth nor username/password");
  return Outcome::done(c.position());
}

std::vector<std::uint8_t> method_choice(bool user_pass) {
  return {kVersion5, user_pass ? kMethodUserPass : kMethodNoAuth};
}

Outcome parse_userpass(bytes::ByteSpan data, Credentials& out) {
  Cursor c(data);
  if (!c.has(1)) return Outcome::need_more();
  // RFC 1929 failure status: the connection is closed after it.
  if (c.u8() != kAuthVersion)
    return Outcome::fail({kAuthVersion, 0x01}, "socks5: username/password message with wrong version");
  if (!c.has(1)) return Outcome::need_more();
  std::uint8_t ulen = c.u8();
  // Empty fields violate RFC 1929 (1..255), but tor accepts them because
  // some clients send them; so do we.
  if (!c.has(std::size_t{ulen} + 1)) return Outcome::need_more();
  out.username = as_string(c.take(ulen));
  std::uint8_t plen = c.u8();
  if (!c.has(plen)) return Outcome::need_more();
  out.password = as_string(c.take(plen));
  return Outcome::done(c.position());
}

Outcome parse_socks5_request(bytes::ByteSpan data, const HandshakeOptions& options, Request& out) {
  Cursor c(data);
  if (!c.has(1)) return Outcome::need_more();
  if (c.u8() != kVersion5) return reject(Reply::GeneralFailure, "socks5: request with wrong version");
  if (!c.has(1)) return Outcome::need_more();
  std::uint8_t cmd = c.u8();
  switch (cmd) {
    case kCmdConnect: out.command = Command::Connect; break;
    case kCmdResolve: out.command = Command::Resolve; break;
    case kCmdResolvePtr: out.command = Command::ResolvePtr; break;
    case kCmdBind:
    case kCmdUdpAssociate:
      return reject(Reply::CommandNotSupported, "socks5: BIND and UDP ASSOCIATE are not supported");
    default:
      return reject(Reply::CommandNotSupported, "socks5: unknown command");
  }
  if (!c.has(1)) return Outcome::need_more();
  if (c.u8() != 0) return reject(Reply::GeneralFailure, "socks5: nonzero reserved byte");
  if (!c.has(1)) return Outcome::need_more();
  std::uint8_t atyp = c.u8();
  bool ip_only = true;
  switch (atyp) {
    case kAtypIpv4: {
      if (!c.has(4)) return Outcome::need_more();
      Ipv4 a{};
      for (auto& b : a) b = c.u8();
      out.address = Address{a};
      break;
    }
    case kAtypIpv6: {
      if (!c.has(16)) return Outcome::need_more();
      Ipv6 a{};
      for (auto& b : a) b = c.u8();
      out.address = Address{a};
      break;
    }
    case kAtypDomain: {
      if (!c.has(1)) return Outcome::need_more();
      std::uint8_t len = c.u8();
      if (len == 0) return reject(Reply::GeneralFailure, "socks5: empty hostname");
      if (!c.has(len)) return Outcome::need_more();
      out.address = Address{as_string(c.take(len))};
      ip_only = false;
      break;
    }
    default:
      return reject(Reply::AddressTypeNotSupported, "socks5: unknown address type");
  }
  if (!c.has(2)) return Outcome::need_more();
  out.port = c.u16();
  out.version = Version::V5;

  if (const std::string* name = out.address.hostname()) {
    if (out.command == Command::ResolvePtr) {
      // A reverse lookup needs an address; tor accepts one written as text.
      auto ip = parse_ip_literal(*name);
      if (!ip) return reject(Reply::AddressTypeNotSupported, "socks5: RESOLVE_PTR of a name, not an address");
      out.address = *ip;
    } else if (!is_valid_destination(*name)) {
      return reject(Reply::GeneralFailure, "socks5: malformed hostname");
    }
  }
  if (out.command == Command::Connect && out.port == 0)
    return reject(Reply::GeneralFailure, "socks5: CONNECT to port 0");
  if (options.safe_socks && ip_only && out.command != Command::ResolvePtr)
    return reject(Reply::NotAllowed, "socks5: IP address only, refused by SafeSocks");
  return Outcome::done(c.position());
}

}  // namespace conflux::socks::detail
