// SOCKS conformance against a running conflux-proxy: malformed, truncated,
// unsupported and hostile requests each get the protocol's answer (a reply
// code, or a close when no reply format fits), while another client's
// download keeps going and the proxy serves new clients afterwards.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <future>

#include "proxy_network_support.hpp"

using namespace conflux::test::proxynet;
using Bytes = std::vector<std::uint8_t>;

namespace {

class RawClient {
 public:
  explicit RawClient(const std::string& socks) {
    const auto colon = socks.rfind(':');
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd_ >= 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(std::stoi(socks.substr(colon + 1))));
    a.sin_addr.s_addr = htonl(0x7f000001);
    REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  }
  ~RawClient() { ::close(fd_); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  void send(const Bytes& b) { REQUIRE(::send(fd_, b.data(), b.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(b.size())); }
  void send(const std::string& s) { send(Bytes(s.begin(), s.end())); }

  // Everything the proxy sends until it closes; `closed` false if `limit` passed first.
  Bytes read_until_close(std::chrono::milliseconds limit, bool& closed) {
    Bytes out;
    closed = false;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return out;
      timeval tv{static_cast<time_t>(left.count() / 1000), static_cast<suseconds_t>((left.count() % 1000) * 1000)};
      ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      std::uint8_t buf[4096];
      const auto n = ::recv(fd_, buf, sizeof buf, 0);
      if (n == 0 || (n < 0 && errno == ECONNRESET)) {
        closed = true;
        return out;
      }
      if (n < 0) return out;  // timed out
      out.insert(out.end(), buf, buf + n);
    }
  }
  Bytes read_exactly(std::size_t n, std::chrono::milliseconds limit) {
    Bytes out;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (out.size() < n && std::chrono::steady_clock::now() < deadline) {
      timeval tv{0, 200000};
      ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      std::uint8_t buf[4096];
      const auto got = ::recv(fd_, buf, std::min(sizeof buf, n - out.size()), 0);
      if (got == 0) break;
      if (got > 0) out.insert(out.end(), buf, buf + got);
    }
    return out;
  }

 private:
  int fd_ = -1;
};

const Bytes kGreetNoAuth{0x05, 0x01, 0x00};

Bytes connect5(std::uint8_t atyp, const Bytes& addr, std::uint16_t port, std::uint8_t cmd = 0x01) {
  Bytes b{0x05, cmd, 0x00, atyp};
  b.insert(b.end(), addr.begin(), addr.end());
  b.push_back(static_cast<std::uint8_t>(port >> 8));
  b.push_back(static_cast<std::uint8_t>(port & 0xff));
  return b;
}
Bytes hostname(const std::string& h) {
  Bytes b{static_cast<std::uint8_t>(h.size())};
  b.insert(b.end(), h.begin(), h.end());
  return b;
}
// A SOCKS5 reply with code `rep` and the 0.0.0.0:0 bound address tor sends.
Bytes reply5(std::uint8_t rep) { return {0x05, rep, 0x00, 0x01, 0, 0, 0, 0, 0, 0}; }
Bytes concat(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

struct Case {
  std::string name;
  std::vector<Bytes> sends;
  Bytes expect;  // the whole answer before the proxy closes
};

}  // namespace

TEST_CASE("the SOCKS port answers bad and hostile requests correctly and keeps serving") {
  Network net;
  const auto file_port = static_cast<std::uint16_t>(
      net.process("fileserver")["ports"]["http"].get<int>());
  const Bytes lo{127, 0, 0, 1};

  // A download that must survive everything below.
  auto background = std::async(std::launch::async, [&] {
    return curl_fetch("--socks5-hostname", net.socks(), net.file_url("50MiB.bin"));
  });

  const std::string long_name = std::string(63, 'a') + "." + std::string(63, 'b') + "." + std::string(63, 'c') + "." +
                                std::string(63, 'd');
  REQUIRE(long_name.size() == 255);
  const std::vector<Case> cases = {
      {"version byte 6: no reply format, close", {{0x06, 0x01, 0x00}}, {}},
      {"SOCKS5 with zero methods", {{0x05, 0x00}}, {0x05, 0xff}},
      {"SOCKS5 offering only GSSAPI", {{0x05, 0x01, 0x01}}, {0x05, 0xff}},
      {"empty hostname", {kGreetNoAuth, connect5(0x03, {0x00}, 80)}, concat({0x05, 0x00}, reply5(0x01))},
      {"BIND", {kGreetNoAuth, connect5(0x01, lo, 80, 0x02)}, concat({0x05, 0x00}, reply5(0x07))},
      {"UDP ASSOCIATE", {kGreetNoAuth, connect5(0x01, lo, 80, 0x03)}, concat({0x05, 0x00}, reply5(0x07))},
      {"unknown address type", {kGreetNoAuth, connect5(0x09, lo, 80)}, concat({0x05, 0x00}, reply5(0x08))},
      {"a port no exit allows", {kGreetNoAuth, connect5(0x01, lo, 1)}, concat({0x05, 0x00}, reply5(0x02))},
      {"connection refused at the destination",
       {kGreetNoAuth, connect5(0x01, {127, 0, 0, 2}, file_port)},
       concat({0x05, 0x00}, reply5(0x05))},
      {"a name that does not resolve",
       {kGreetNoAuth, connect5(0x03, hostname("nonexistent.invalid"), file_port)},
       concat({0x05, 0x00}, reply5(0x04))},
      {"a 255-byte name (valid, unresolvable)",
       {kGreetNoAuth, connect5(0x03, hostname(long_name), file_port)},
       concat({0x05, 0x00}, reply5(0x04))},
      {"SOCKS4 to a port no exit allows", {{0x04, 0x01, 0x00, 0x01, 127, 0, 0, 1, 'u', 0}},
       {0x00, 0x5b, 0, 0, 0, 0, 0, 0}},
      {"SOCKS4a with an empty hostname", {{0x04, 0x01, 0x00, 0x50, 0, 0, 0, 1, 'u', 0, 0}},
       {0x00, 0x5b, 0, 0, 0, 0, 0, 0}},
      {"RESOLVE (0xF0) of localhost", {kGreetNoAuth, connect5(0x03, hostname("localhost"), 0, 0xf0)},
       {0x05, 0x00, 0x05, 0x00, 0x00, 0x01, 127, 0, 0, 1, 0, 0}},
      {"truncated request, then the client waits", {{0x05, 0x01}}, {}},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    RawClient client(net.socks());
    for (const auto& b : c.sends) client.send(b);
    bool closed = false;
    // The truncated request waits for the handshake deadline (30 s).
    const auto answer = client.read_until_close(c.expect.empty() && c.sends[0][0] == 0x05 ? 45s : 30s, closed);
    CHECK(closed);
    CHECK(answer == c.expect);
  }

  SECTION("an HTTP request on the SOCKS port gets an explanation") {
    RawClient client(net.socks());
    client.send(std::string("GET / HTTP/1.0\r\nHost: x\r\n\r\n"));
    bool closed = false;
    const auto answer = client.read_until_close(10s, closed);
    CHECK(closed);
    CHECK(std::string(answer.begin(), answer.end()).rfind("HTTP/1.0 501", 0) == 0);
  }
  SECTION("a client that sends one byte a second still gets served") {
    RawClient slow(net.socks());
    const Bytes request = concat(kGreetNoAuth, connect5(0x01, lo, file_port));
    for (auto b : request) {
      slow.send(Bytes{b});
      std::this_thread::sleep_for(1s);  // the hostile pace itself, not synchronisation
    }
    CHECK(slow.read_exactly(12, 30s) == concat({0x05, 0x00}, reply5(0x00)));
    slow.send(std::string("GET /320KiB.bin HTTP/1.0\r\n\r\n"));
    bool closed = false;
    const auto body = slow.read_until_close(60s, closed);
    CHECK(closed);
    const std::string text(body.begin(), body.end());
    REQUIRE(text.find("\r\n\r\n") != std::string::npos);
    CHECK(sha256_hex(text.substr(text.find("\r\n\r\n") + 4)) == net.file_sha("320KiB.bin"));
  }

  // The download carried on, and a new client is served.
  const auto done = background.get();
  CHECK(done.curl_status == 0);
  CHECK(done.sha256 == net.file_sha("50MiB.bin"));
  const auto after = curl_fetch("--socks5-hostname", net.socks(), net.file_url("1MiB.bin"));
  CHECK(after.curl_status == 0);
  CHECK(after.sha256 == net.file_sha("1MiB.bin"));
  CHECK(metric(scrape(net.metrics_url()), "conflux_proxy_socks_rejected_total").value_or(0) >= 4);
}
