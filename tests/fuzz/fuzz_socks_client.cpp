// Our SOCKS5 client against arbitrary server bytes (a transport's or a
// proxy's answers are hostile input). Input: [flags][split seed][bytes...];
// flag bit 0 = with username/password. Checks: fed in one piece or in
// pseudo-random pieces, the outcome (status, bytes sent, tunnel bytes,
// error) is the same; Connected only after a complete reply, with the
// tunnel's bytes exactly what followed it; nothing is sent after the end.
#include <cstdint>
#include <string>
#include <vector>

#include "conflux/socks/client.hpp"

namespace {

using namespace conflux::socks;
using Bytes = std::vector<std::uint8_t>;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

struct Outcome {
  ClientHandshake::Status status = ClientHandshake::Status::NeedMore;
  Bytes sent;
  Bytes rest;
  std::string error;
  bool operator==(const Outcome&) const = default;
};

Outcome run(bool auth, const std::uint8_t* data, std::size_t size, std::uint8_t seed) {
  ClientRequest r{Address{Ipv4{127, 0, 0, 1}}, 443, {}, {}};
  if (auth) {
    r.username = "cert=abc;iat-mode=0";
    r.password = std::string(1, '\0');
  }
  ClientHandshake h(r);
  Outcome out;
  auto s = h.start();
  out.sent = s.send;
  std::uint32_t lcg = seed;
  std::size_t at = 0;
  while (at < size && out.status == ClientHandshake::Status::NeedMore) {
    std::size_t n = size - at;
    if (seed != 0) {
      lcg = lcg * 1103515245u + 12345u;
      n = std::min<std::size_t>(n, 1 + (lcg >> 16) % 8);
    }
    s = h.feed(Bytes(data + at, data + at + n));
    at += n;
    out.sent.insert(out.sent.end(), s.send.begin(), s.send.end());
    out.status = s.status;
    out.error = s.error;
    if (s.status == ClientHandshake::Status::Connected) {
      out.rest = s.rest;
      out.rest.insert(out.rest.end(), data + at, data + size);  // what came after: the tunnel's
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const bool auth = (data[0] & 1) != 0;
  const Outcome whole = run(auth, data + 2, size - 2, 0);
  check(run(auth, data + 2, size - 2, data[1] == 0 ? 1 : data[1]) == whole);
  // The shortest complete exchange: method (2), auth (2), a reply with an
  // empty hostname (4 + 1 + 2).
  if (whole.status == ClientHandshake::Status::Connected) check(size - 2 >= 2 + (auth ? 2 : 0) + 7);
  return 0;
}
