// Replies after a request, and tor's END-reason mapping.
#include "conflux/socks/reply.hpp"

#include <string_view>

namespace conflux::socks {
namespace {

constexpr std::uint8_t kSocks4ReplyVersion = 0;
constexpr std::uint8_t kSocks4Granted = 90;
constexpr std::uint8_t kSocks4Rejected = 91;

void put_port(std::vector<std::uint8_t>& out, std::uint16_t port) {
  out.push_back(static_cast<std::uint8_t>(port >> 8));
  out.push_back(static_cast<std::uint8_t>(port));
}

std::vector<std::uint8_t> socks4(bool granted, const Ipv4* ip, std::uint16_t port) {
  std::vector<std::uint8_t> out{kSocks4ReplyVersion, granted ? kSocks4Granted : kSocks4Rejected};
  put_port(out, ip ? port : 0);
  if (ip) {
    out.insert(out.end(), ip->begin(), ip->end());
  } else {
    out.insert(out.end(), 4, 0);
  }
  return out;
}

std::vector<std::uint8_t> socks5(std::uint8_t rep, const Address* bound, std::uint16_t port) {
  std::vector<std::uint8_t> out{5, rep, 0};
  const std::string* name = bound ? bound->hostname() : nullptr;
  if (bound && bound->ipv4()) {
    out.push_back(1);
    out.insert(out.end(), bound->ipv4()->begin(), bound->ipv4()->end());
  } else if (bound && bound->ipv6()) {
    out.push_back(4);
    out.insert(out.end(), bound->ipv6()->begin(), bound->ipv6()->end());
  } else if (name && !name->empty() && name->size() <= 255) {
    out.push_back(3);
    out.push_back(static_cast<std::uint8_t>(name->size()));
    out.insert(out.end(), name->begin(), name->end());
  } else {
    out.insert(out.end(), {1, 0, 0, 0, 0});
    port = 0;
  }
  put_port(out, port);
  return out;
}

}  // namespace

std::vector<std::uint8_t> encode_reply(Version version, Reply reply, const Address* bound, std::uint16_t port) {
  if (version == Version::V4) return socks4(reply == Reply::Succeeded, bound ? bound->ipv4() : nullptr, port);
  return socks5(static_cast<std::uint8_t>(reply), bound, port);
}

std::vector<std::uint8_t> encode_resolve_reply(Version version, const Address& answer) {
  if (version == Version::V4) return socks4(answer.ipv4() != nullptr, answer.ipv4(), 0);
  const std::string* name = answer.hostname();
  if (name && (name->empty() || name->size() > 255)) return socks5(static_cast<std::uint8_t>(Reply::HostUnreachable), nullptr, 0);
  return socks5(static_cast<std::uint8_t>(Reply::Succeeded), &answer, 0);
}

Reply reply_for_end_reason(cell::EndReason reason) noexcept {
  using R = cell::EndReason;
  switch (reason) {
    case R::ResolveFailed: return Reply::HostUnreachable;
    case R::ConnectRefused: return Reply::ConnectionRefused;
    case R::ExitPolicy: return Reply::NotAllowed;
    // DONE before CONNECTED: the far side closed before the stream opened.
    case R::Done: return Reply::ConnectionRefused;
    case R::Timeout: return Reply::TtlExpired;
    // tor says host (not network) unreachable for the exit's NOROUTE.
    case R::NoRoute: return Reply::HostUnreachable;
    case R::ConnReset: return Reply::ConnectionRefused;
    case R::Misc:
    case R::Destroy:
    case R::Hibernating:
    case R::Internal:
    case R::ResourceLimit:
    case R::TorProtocol:
    case R::NotDirectory:
      return Reply::GeneralFailure;
  }
  return Reply::GeneralFailure;  // a reason code this build does not know
}

std::vector<std::uint8_t> http_not_a_proxy_response() {
  static constexpr std::string_view kBody =
      "This is a SOCKS proxy, not an HTTP proxy.\n"
      "Configure your application to use it as a SOCKS5 (or SOCKS4a) proxy.\n";
  std::string text = "HTTP/1.0 501 Not Implemented\r\n"
                     "Content-Type: text/plain; charset=utf-8\r\n"
                     "Content-Length: " + std::to_string(kBody.size()) + "\r\n"
                     "Connection: close\r\n\r\n";
  text += kBody;
  return {text.begin(), text.end()};
}

}  // namespace conflux::socks
