// Every failure gets a definite answer: a reply in the client's protocol
// and Close, or Close alone when there is no reply format. Splits never
// change the answer.
#include "test_socks_support.hpp"

using namespace conflux::test::socks;

namespace {
Outcome closed_with(const Bytes& in, const Bytes& reply, HandshakeOptions opt = {}) {
  auto out = run_all_splits(in, opt);
  CHECK(out.status == Status::Close);
  CHECK(out.sent == reply);
  CHECK(!out.request);
  CHECK(!out.error.empty());
  return out;
}
Bytes v5(std::initializer_list<int> request) { return cat({kNoAuth, B(request)}); }
Bytes v5_name(int cmd, std::string_view name, int port_lo = 80) {
  return cat({kNoAuth, B({5, cmd, 0, 3}), len_str(name), B({0, port_lo})});
}
const Bytes kChoseNoAuth = B({5, 0});
}  // namespace

TEST_CASE("socks errors: first byte neither 4 nor 5 closes without a reply") {
  for (int first : {0, 1, 2, 3, 6, 0x16, 0xff}) {
    CAPTURE(first);
    closed_with(B({first, 1, 0}), {});
  }
}

TEST_CASE("socks errors: HTTP on the SOCKS port gets a 501 page") {
  for (std::string_view http : {"GET / HTTP/1.1\r\n\r\n", "CONNECT example.com:443 HTTP/1.1\r\n\r\n",
                                "POST /x HTTP/1.0\r\n", "HEAD / HTTP/1.1\r\n"}) {
    CAPTURE(http);
    auto page = http_not_a_proxy_response();
    closed_with(S(http), page);
    std::string text(page.begin(), page.end());
    CHECK(text.rfind("HTTP/1.0 501 ", 0) == 0);
    CHECK(text.find("SOCKS proxy, not an HTTP proxy") != std::string::npos);
  }
}

TEST_CASE("socks5 errors: method negotiation") {
  closed_with(B({5, 0}), B({5, 0xff}));           // zero methods
  closed_with(B({5, 1, 1}), B({5, 0xff}));        // GSSAPI only
  closed_with(B({5, 2, 0x80, 3}), B({5, 0xff}));  // nothing we know
}

TEST_CASE("socks5 errors: RFC 1929 message with a wrong version gets status failure") {
  closed_with(B({5, 1, 2, 5, 1, 0, 3, 0, 0, 1}), B({5, 2, 1, 1}));
}

TEST_CASE("socks5 errors: request header") {
  closed_with(v5({4, 1, 0, 1, 1, 2, 3, 4, 0, 80}), cat({kChoseNoAuth, v5_error(1)}));  // wrong version
  closed_with(v5({5, 1, 1, 1, 1, 2, 3, 4, 0, 80}), cat({kChoseNoAuth, v5_error(1)}));  // reserved != 0
  closed_with(v5({5, 2, 0, 1, 1, 2, 3, 4, 0, 80}), cat({kChoseNoAuth, v5_error(7)}));  // BIND
  closed_with(v5({5, 3, 0, 1, 1, 2, 3, 4, 0, 80}), cat({kChoseNoAuth, v5_error(7)}));  // UDP ASSOCIATE
  closed_with(v5({5, 9, 0, 1, 1, 2, 3, 4, 0, 80}), cat({kChoseNoAuth, v5_error(7)}));  // unknown command
  closed_with(v5({5, 0, 0, 1, 1, 2, 3, 4, 0, 80}), cat({kChoseNoAuth, v5_error(7)}));
  for (int atyp : {0, 2, 5, 0xff}) {
    CAPTURE(atyp);
    closed_with(v5({5, 1, 0, atyp, 1, 2, 3, 4, 0, 80}), cat({kChoseNoAuth, v5_error(8)}));
  }
}

TEST_CASE("socks5 errors: hostnames") {
  closed_with(v5({5, 1, 0, 3, 0, 0, 80}), cat({kChoseNoAuth, v5_error(1)}));  // empty
  std::vector<std::string> bad = {"exa mple.com", "-lead.example", "_lead.example", "a..b", "..", ".",
                                  std::string("foo\0bar", 7), "caf\xc3\xa9.example", "host:80", "a/b",
                                  "[example.com]", "example.com.."};
  for (const auto& name : bad) {
    CAPTURE(name);
    closed_with(v5_name(1, name), cat({kChoseNoAuth, v5_error(1)}));
  }
  // RESOLVE_PTR needs an address.
  closed_with(v5_name(0xf1, "example.com", 0), cat({kChoseNoAuth, v5_error(8)}));
}

TEST_CASE("socks5 errors: CONNECT to port 0 (tor refuses it)") {
  closed_with(v5({5, 1, 0, 1, 1, 2, 3, 4, 0, 0}), cat({kChoseNoAuth, v5_error(1)}));
}

TEST_CASE("socks errors: SafeSocks refuses address-only requests") {
  HandshakeOptions safe{.safe_socks = true};
  closed_with(v5({5, 1, 0, 1, 1, 2, 3, 4, 0, 80}), cat({kChoseNoAuth, v5_error(2)}), safe);
  closed_with(v5({5, 0xf0, 0, 1, 1, 2, 3, 4, 0, 0}), cat({kChoseNoAuth, v5_error(2)}), safe);
  closed_with(B({4, 1, 0, 80, 1, 2, 3, 4, 0}), kV4Rejected, safe);
  // Names, and reverse lookups of addresses, pass.
  CHECK(run(v5_name(1, "example.com"), safe).status == Status::Request);
  CHECK(run(v5({5, 0xf1, 0, 1, 1, 2, 3, 4, 0, 0}), safe).status == Status::Request);
  CHECK(run(cat({B({4, 1, 0, 80, 0, 0, 0, 1, 0}), S("example.com"), B({0})}), safe).status == Status::Request);
}

TEST_CASE("socks4 errors: every refusal is 91") {
  closed_with(B({4, 2, 0, 80, 1, 2, 3, 4, 0}), kV4Rejected);        // BIND
  closed_with(B({4, 0xf1, 0, 0, 1, 2, 3, 4, 0}), kV4Rejected);      // RESOLVE_PTR: not in SOCKS4
  closed_with(B({4, 7, 0, 80, 1, 2, 3, 4, 0}), kV4Rejected);        // unknown
  closed_with(B({4, 1, 0, 80, 0, 0, 0, 0, 0}), kV4Rejected);        // 0.0.0.0
  closed_with(B({4, 1, 0, 0, 1, 2, 3, 4, 0}), kV4Rejected);         // port 0
  closed_with(B({4, 1, 0, 80, 0, 0, 0, 1, 0, 0}), kV4Rejected);     // SOCKS4a, empty hostname
  closed_with(cat({B({4, 1, 0, 80, 0, 0, 0, 1, 0}), S("bad name"), B({0})}), kV4Rejected);
}

TEST_CASE("socks4 errors: userid or hostname beyond 255 bytes without a NUL") {
  Bytes long_user = cat({B({4, 1, 0, 80, 1, 2, 3, 4}), Bytes(256, 'u')});
  auto out = closed_with(long_user, kV4Rejected);
  // Decided at the 256th byte, without waiting for more.
  CHECK(run(Bytes(long_user.begin(), long_user.end() - 1)).status == Status::NeedMore);
  closed_with(cat({B({4, 1, 0, 80, 0, 0, 0, 1, 0}), Bytes(256, 'h')}), kV4Rejected);
}

TEST_CASE("socks errors: truncated input, then the client closes") {
  std::vector<Bytes> partial = {B({5}), B({5, 2, 0}), cat({kNoAuth, B({5, 1, 0, 3, 11})}), B({5, 1, 2, 1, 4, 'u'}),
                                B({4, 1, 0, 80, 1, 2, 3}), B({4, 1, 0, 80, 0, 0, 0, 1, 'u', 0, 'h'})};
  for (const auto& in : partial) {
    ServerHandshake hs;
    auto step = hs.feed(in);
    CHECK(step.status == Status::NeedMore);
    CHECK(hs.buffered() <= in.size());
    auto end = hs.end_of_input();
    CHECK(end.status == Status::Close);
    CHECK(end.to_send.empty());
    CHECK(!end.error.empty());
    CHECK(hs.finished());
  }
}

TEST_CASE("socks errors: feeding a finished handshake closes and consumes nothing") {
  ServerHandshake done;
  REQUIRE(done.feed(cat({kNoAuth, B({5, 1, 0, 1, 1, 2, 3, 4, 0, 80})})).status == Status::Request);
  auto again = done.feed(B({1, 2, 3}));
  CHECK(again.status == Status::Close);
  CHECK(again.to_send.empty());
  CHECK(done.end_of_input().status == Status::Close);

  ServerHandshake failed;
  REQUIRE(failed.feed(B({9})).status == Status::Close);
  CHECK(failed.feed(kNoAuth).status == Status::Close);
}

TEST_CASE("socks errors: an empty feed needs more") {
  ServerHandshake hs;
  auto step = hs.feed({});
  CHECK(step.status == Status::NeedMore);
  CHECK(step.to_send.empty());
}
