// SOCKS4 and SOCKS4a requests: VN=4 CD DSTPORT DSTIP USERID NUL, and for
// SOCKS4a (DSTIP 0.0.0.x, x != 0) HOSTNAME NUL after the userid. Commands:
// CONNECT and Tor's RESOLVE (0xF0); tor refuses BIND and RESOLVE_PTR here.
// Every refusal is the one SOCKS4 failure reply, 91.
#include "conflux/socks/reply.hpp"
#include "messages.hpp"

namespace conflux::socks::detail {
namespace {

constexpr std::uint8_t kCmdConnect = 0x01;
constexpr std::uint8_t kCmdResolve = 0xf0;

Outcome reject(std::string error) {
  return Outcome::fail(encode_reply(Version::V4, Reply::GeneralFailure), std::move(error));
}

}  // namespace

Outcome parse_socks4_request(bytes::ByteSpan data, const HandshakeOptions& options, Request& out) {
  Cursor c(data);
  if (!c.has(2)) return Outcome::need_more();
  (void)c.u8();  // the caller dispatched on the version byte
  std::uint8_t cmd = c.u8();
  if (cmd == kCmdConnect) {
    out.command = Command::Connect;
  } else if (cmd == kCmdResolve) {
    out.command = Command::Resolve;
  } else {
    return reject("socks4: command not supported (only CONNECT and RESOLVE)");
  }
  if (!c.has(6)) return Outcome::need_more();
  out.port = c.u16();
  Ipv4 ip{};
  for (auto& b : ip) b = c.u8();
  bool all_zero = ip == Ipv4{};
  bool socks4a = !all_zero && ip[0] == 0 && ip[1] == 0 && ip[2] == 0;
  if (all_zero) return reject("socks4: destination address 0.0.0.0");
  // tor lets RESOLVE name port 0 (the port means nothing there).
  if (out.port == 0 && out.command != Command::Resolve) return reject("socks4: port 0");

  std::ptrdiff_t userlen = c.nul_field(kMaxUserId);
  if (userlen == -2) return reject("socks4: userid too long");
  if (userlen < 0) return Outcome::need_more();
  std::string userid = as_string(c.take(static_cast<std::size_t>(userlen)));
  (void)c.u8();
  out.username = userid.empty() ? std::nullopt : std::optional<std::string>(std::move(userid));
  out.password.reset();

  if (socks4a) {
    std::ptrdiff_t hostlen = c.nul_field(kMaxHostname);
    if (hostlen == -2) return reject("socks4a: hostname too long");
    if (hostlen < 0) return Outcome::need_more();
    std::string host = as_string(c.take(static_cast<std::size_t>(hostlen)));
    (void)c.u8();
    if (!is_valid_destination(host)) return reject("socks4a: malformed hostname");
    out.address = Address{std::move(host)};
  } else {
    if (options.safe_socks) return reject("socks4: IP address only, refused by SafeSocks");
    out.address = Address{ip};
  }
  out.version = Version::V4;
  return Outcome::done(c.position());
}

}  // namespace conflux::socks::detail
