#include "conflux/socks/client.hpp"

namespace conflux::socks {

namespace {

constexpr std::uint8_t kV5 = 5;
constexpr std::uint8_t kNoAuth = 0x00;
constexpr std::uint8_t kUserPass = 0x02;
constexpr std::uint8_t kNoAcceptable = 0xff;

bool credentials_ok(const ClientRequest& r) {
  if (r.username.has_value() != r.password.has_value()) return false;
  if (!r.username) return true;
  return !r.username->empty() && r.username->size() <= 255 && !r.password->empty() && r.password->size() <= 255;
}

}  // namespace

ClientHandshake::Step ClientHandshake::fail(std::string why) {
  phase_ = Phase::Done;
  Step s;
  s.status = Status::Failed;
  s.error = std::move(why);
  return s;
}

std::vector<std::uint8_t> ClientHandshake::connect_request() const {
  std::vector<std::uint8_t> out{kV5, 0x01, 0x00};
  if (const auto* v4 = request_.address.ipv4()) {
    out.push_back(0x01);
    out.insert(out.end(), v4->begin(), v4->end());
  } else if (const auto* v6 = request_.address.ipv6()) {
    out.push_back(0x04);
    out.insert(out.end(), v6->begin(), v6->end());
  } else {
    const std::string& h = *request_.address.hostname();
    out.push_back(0x03);
    out.push_back(static_cast<std::uint8_t>(h.size()));
    out.insert(out.end(), h.begin(), h.end());
  }
  out.push_back(static_cast<std::uint8_t>(request_.port >> 8));
  out.push_back(static_cast<std::uint8_t>(request_.port & 0xff));
  return out;
}

ClientHandshake::Step ClientHandshake::start() {
  if (!credentials_ok(request_)) return fail("SOCKS5 credentials must be 1 to 255 bytes each");
  if (const auto* h = request_.address.hostname(); h != nullptr && (h->empty() || h->size() > 255))
    return fail("a SOCKS5 hostname is 1 to 255 bytes");
  if (request_.port == 0) return fail("port 0");
  Step s;
  s.send = {kV5, 1, request_.username ? kUserPass : kNoAuth};
  return s;
}

ClientHandshake::Step ClientHandshake::on_method() {
  if (in_.size() < 2) return {};
  if (in_[0] != kV5) return fail("the proxy does not speak SOCKS5");
  const std::uint8_t method = in_[1];
  in_.erase(in_.begin(), in_.begin() + 2);
  const std::uint8_t wanted = request_.username ? kUserPass : kNoAuth;
  if (method == kNoAcceptable || method != wanted) return fail("the proxy accepts none of our authentication methods");
  Step s;
  if (request_.username) {
    phase_ = Phase::Auth;
    s.send = {0x01, static_cast<std::uint8_t>(request_.username->size())};
    s.send.insert(s.send.end(), request_.username->begin(), request_.username->end());
    s.send.push_back(static_cast<std::uint8_t>(request_.password->size()));
    s.send.insert(s.send.end(), request_.password->begin(), request_.password->end());
    return s;
  }
  phase_ = Phase::Reply;
  s.send = connect_request();
  return s;
}

ClientHandshake::Step ClientHandshake::on_auth() {
  if (in_.size() < 2) return {};
  if (in_[0] != 0x01) return fail("a bad username/password reply");
  if (in_[1] != 0x00) return fail("the proxy refused our credentials");
  in_.erase(in_.begin(), in_.begin() + 2);
  phase_ = Phase::Reply;
  Step s;
  s.send = connect_request();
  return s;
}

ClientHandshake::Step ClientHandshake::on_reply() {
  if (in_.size() < 5) return {};
  if (in_[0] != kV5 || in_[2] != 0x00) return fail("a bad SOCKS5 reply");
  std::size_t addr_len = 0;
  switch (in_[3]) {
    case 0x01: addr_len = 4; break;
    case 0x04: addr_len = 16; break;
    case 0x03: addr_len = 1 + std::size_t{in_[4]}; break;
    default: return fail("a SOCKS5 reply with address type " + std::to_string(in_[3]));
  }
  const std::size_t total = 4 + addr_len + 2;
  if (in_.size() < total) return {};
  const std::uint8_t rep = in_[1];
  if (rep != 0x00) {
    Step s = fail("the proxy could not connect (SOCKS5 reply " + std::to_string(rep) + ")");
    if (rep <= static_cast<std::uint8_t>(Reply::AddressTypeNotSupported)) s.reply = static_cast<Reply>(rep);
    return s;
  }
  phase_ = Phase::Done;
  Step s;
  s.status = Status::Connected;
  s.reply = Reply::Succeeded;
  s.rest.assign(in_.begin() + static_cast<std::ptrdiff_t>(total), in_.end());
  in_.clear();
  return s;
}

ClientHandshake::Step ClientHandshake::feed(std::span<const std::uint8_t> bytes) {
  if (phase_ == Phase::Done) return fail("the handshake is over");
  // The server speaks only after we did; what it may send before its reply
  // is bounded (2 + 2 + 4 + 257 + 2 bytes), anything more is the tunnel's.
  in_.insert(in_.end(), bytes.begin(), bytes.end());
  Step out;
  for (;;) {
    const Phase before = phase_;
    Step s = phase_ == Phase::Method ? on_method() : phase_ == Phase::Auth ? on_auth() : on_reply();
    out.send.insert(out.send.end(), s.send.begin(), s.send.end());
    if (s.status != Status::NeedMore) {
      s.send = std::move(out.send);
      return s;
    }
    if (phase_ == before) return out;  // needs more bytes
  }
}

}  // namespace conflux::socks
