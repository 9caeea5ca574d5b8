// The server-side SOCKS handshake over arbitrary client bytes.
// Input: [flags][split seed][client bytes...]; flags bit 0 = SafeSocks,
// bit 1 = PreferSOCKSNoAuth. Checks:
//  - feeding in one piece and in pseudo-random pieces gives the same
//    replies, status, request, early data and error;
//  - never more than kMaxBuffered bytes held;
//  - a Request only with the fields the header promises;
//  - a Request re-encoded canonically (by this target) parses to itself;
//  - end_of_input after NeedMore closes without a reply.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "conflux/socks/handshake.hpp"
#include "conflux/socks/reply.hpp"

namespace {

using namespace conflux::socks;
using Bytes = std::vector<std::uint8_t>;
using Status = ServerHandshake::Step::Status;

struct Outcome {
  Bytes sent;
  Status status = Status::NeedMore;
  std::optional<Request> request;
  Bytes early;
  std::string error;
  bool operator==(const Outcome&) const = default;
};

void check(bool ok) {
  if (!ok) __builtin_trap();
}

// Pieces of 1..16 bytes from a tiny LCG (or the whole input when seed == 0).
Outcome run(const Bytes& input, HandshakeOptions opt, std::uint8_t seed) {
  ServerHandshake hs(opt);
  Outcome out;
  std::uint32_t state = seed;
  std::size_t from = 0;
  while (true) {
    std::size_t n = input.size() - from;
    if (seed != 0) {
      state = state * 1103515245u + 12345u;
      n = std::min<std::size_t>(n, 1 + ((state >> 16) % 16));
    }
    auto step = hs.feed(conflux::bytes::ByteSpan(input).subspan(from, n));
    from += n;
    check(hs.buffered() <= kMaxBuffered);
    out.sent.insert(out.sent.end(), step.to_send.begin(), step.to_send.end());
    out.status = step.status;
    if (step.status == Status::Request) {
      check(step.request.has_value() && step.error.empty());
      out.request = step.request;
      out.early = step.early_data;
      out.early.insert(out.early.end(), input.begin() + static_cast<std::ptrdiff_t>(from), input.end());
      check(hs.finished() && hs.buffered() == 0);
      return out;
    }
    check(!step.request.has_value() && step.early_data.empty());
    if (step.status == Status::Close) {
      check(!step.error.empty() && hs.finished());
      out.error = step.error;
      return out;
    }
    if (from == input.size()) {
      if (seed == 0) {
        auto end = hs.end_of_input();
        check(end.status == Status::Close && end.to_send.empty());
      }
      return out;
    }
  }
}

void check_fields(const Request& r, HandshakeOptions opt) {
  if (const std::string* name = r.address.hostname()) {
    check(!name->empty() && name->size() <= kMaxHostname && is_valid_destination(*name));
    check(r.command != Command::ResolvePtr);
  } else if (opt.safe_socks) {
    check(r.command == Command::ResolvePtr);  // SafeSocks lets an address through only for a reverse lookup
  }
  if (r.command == Command::Connect) check(r.port != 0);
  if (r.username) check(!r.username->empty() && r.username->size() <= 255);
  if (r.password) check(!r.password->empty() && r.password->size() <= 255);
  if (r.version == Version::V4) {
    check(r.command != Command::ResolvePtr && !r.password);
    if (const Ipv4* ip = r.address.ipv4()) check(*ip != Ipv4{} && !(ip->at(0) == 0 && ip->at(1) == 0 && ip->at(2) == 0));
    check(r.address.ipv6() == nullptr);
    if (r.username) check(r.username->find('\0') == std::string::npos);
  }
}

Bytes encode_request(const Request& r) {
  Bytes out;
  auto add = [&](const std::string& s) { out.insert(out.end(), s.begin(), s.end()); };
  auto port = [&] {
    out.push_back(static_cast<std::uint8_t>(r.port >> 8));
    out.push_back(static_cast<std::uint8_t>(r.port));
  };
  if (r.version == Version::V4) {
    out = {4, static_cast<std::uint8_t>(r.command == Command::Connect ? 1 : 0xf0)};
    port();
    const Ipv4* ip = r.address.ipv4();
    Ipv4 marker{0, 0, 0, 1};
    const Ipv4& dst = ip ? *ip : marker;
    out.insert(out.end(), dst.begin(), dst.end());
    if (r.username) add(*r.username);
    out.push_back(0);
    if (!ip) {
      add(*r.address.hostname());
      out.push_back(0);
    }
    return out;
  }
  bool auth = r.username || r.password;
  out = {5, 1, static_cast<std::uint8_t>(auth ? 2 : 0)};
  if (auth) {
    const std::string empty;
    const std::string& u = r.username ? *r.username : empty;
    const std::string& p = r.password ? *r.password : empty;
    out.push_back(1);
    out.push_back(static_cast<std::uint8_t>(u.size()));
    add(u);
    out.push_back(static_cast<std::uint8_t>(p.size()));
    add(p);
  }
  std::uint8_t cmd = r.command == Command::Connect ? 1 : r.command == Command::Resolve ? 0xf0 : 0xf1;
  out.insert(out.end(), {5, cmd, 0});
  if (const Ipv4* ip = r.address.ipv4()) {
    out.push_back(1);
    out.insert(out.end(), ip->begin(), ip->end());
  } else if (const Ipv6* ip6 = r.address.ipv6()) {
    out.push_back(4);
    out.insert(out.end(), ip6->begin(), ip6->end());
  } else {
    out.push_back(3);
    out.push_back(static_cast<std::uint8_t>(r.address.hostname()->size()));
    add(*r.address.hostname());
  }
  port();
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  HandshakeOptions opt{.safe_socks = (data[0] & 1) != 0, .prefer_no_auth = (data[0] & 2) != 0};
  std::uint8_t seed = data[1];
  Bytes input(data + 2, data + size);

  Outcome whole = run(input, opt, 0);
  Outcome split = run(input, opt, seed == 0 ? 1 : seed);
  check(whole == split);

  if (whole.request) {
    const Request& r = *whole.request;
    check_fields(r, opt);
    // Re-encoded canonically, with optimistic data behind it.
    Bytes again = encode_request(r);
    again.insert(again.end(), whole.early.begin(), whole.early.end());
    Outcome re = run(again, {.safe_socks = opt.safe_socks}, seed);
    check(re.status == Status::Request && re.request == whole.request && re.early == whole.early);
    // Replies encode without surprises.
    std::size_t v5_size = r.address.ipv4() ? 10 : r.address.ipv6() ? 22 : 7 + r.address.hostname()->size();
    auto rep = encode_reply(r.version, Reply::Succeeded, &r.address, r.port);
    check(r.version == Version::V4 ? rep.size() == 8 : rep.size() == v5_size && rep[0] == 5 && rep[1] == 0);
    auto res = encode_resolve_reply(r.version, r.address);
    check(r.version == Version::V4 ? res.size() == 8 : res.size() == v5_size && res[1] == 0);
    (void)to_string(r.address);
    (void)isolation_key(r);
  }
  return 0;
}
