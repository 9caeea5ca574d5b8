// SOCKS5 (RFC 1928) and RFC 1929 messages that succeed, byte for byte, over
// every split of the input.
#include "test_socks_support.hpp"

using namespace conflux::test::socks;

TEST_CASE("socks5: no-auth CONNECT to a hostname") {
  Bytes in = cat({kNoAuth, B({5, 1, 0, 3}), len_str("example.com"), B({0, 80})});
  auto out = run_all_splits(in);
  CHECK(out.status == Status::Request);
  CHECK(out.sent == B({5, 0}));
  CHECK(out.request == req(Version::V5, Command::Connect, Address{std::string("example.com")}, 80));
  CHECK(out.early.empty());
  CHECK(isolation_key(*out.request).empty());
}

TEST_CASE("socks5: CONNECT to IPv4 and IPv6 addresses") {
  auto v4 = run_all_splits(cat({kNoAuth, B({5, 1, 0, 1, 127, 0, 0, 1, 0x1f, 0x90})}));
  CHECK(v4.request == req(Version::V5, Command::Connect, Address{Ipv4{127, 0, 0, 1}}, 8080));

  Ipv6 six{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  Bytes in = cat({kNoAuth, B({5, 1, 0, 4}), Bytes(six.begin(), six.end()), B({1, 0xbb})});
  auto v6 = run_all_splits(in);
  CHECK(v6.request == req(Version::V5, Command::Connect, Address{six}, 443));
  CHECK(to_string(v6.request->address) == "[2001:db8::1]");
}

TEST_CASE("socks5: username/password (RFC 1929) is accepted without checking and kept as the isolation key") {
  Bytes in = cat({B({5, 2, 0, 2}), B({1}), len_str("user"), len_str("pass"), B({5, 1, 0, 3}), len_str("a.onion"),
                  B({0, 80})});
  auto out = run_all_splits(in);
  CHECK(out.sent == B({5, 2, 1, 0}));
  CHECK(out.request == req(Version::V5, Command::Connect, Address{std::string("a.onion")}, 80, "user", "pass"));
  CHECK(isolation_key(*out.request) == "4:user4:pass");
}

TEST_CASE("socks5: method choice") {
  auto first_reply = [](Bytes greeting, HandshakeOptions opt = {}) {
    ServerHandshake hs(opt);
    return hs.feed(greeting).to_send;
  };
  CHECK(first_reply(B({5, 1, 2})) == B({5, 2}));
  CHECK(first_reply(B({5, 2, 0, 2})) == B({5, 2}));
  CHECK(first_reply(B({5, 2, 2, 0})) == B({5, 2}));
  CHECK(first_reply(B({5, 1, 0})) == B({5, 0}));
  CHECK(first_reply(B({5, 3, 0x80, 1, 0})) == B({5, 0}));  // unknown and GSSAPI ignored
  // PreferSOCKSNoAuth: no auth when both are offered, user/pass when only it is.
  CHECK(first_reply(B({5, 2, 0, 2}), {.prefer_no_auth = true}) == B({5, 0}));
  CHECK(first_reply(B({5, 1, 2}), {.prefer_no_auth = true}) == B({5, 2}));
}

TEST_CASE("socks5: empty and 255-byte credentials") {
  SECTION("both empty: accepted (tor does, against RFC 1929), no isolation key") {
    auto out = run_all_splits(cat({B({5, 1, 2, 1, 0, 0}), B({5, 1, 0, 1, 10, 0, 0, 1, 0, 22})}));
    CHECK(out.sent == B({5, 2, 1, 0}));
    REQUIRE(out.request);
    CHECK(!out.request->username);
    CHECK(!out.request->password);
    CHECK(isolation_key(*out.request).empty());
  }
  SECTION("username only") {
    auto out = run(cat({B({5, 1, 2, 1}), len_str("u"), B({0}), B({5, 1, 0, 1, 10, 0, 0, 1, 0, 22})}));
    REQUIRE(out.request);
    CHECK(out.request->username == "u");
    CHECK(!out.request->password);
    CHECK(isolation_key(*out.request) == "1:u0:");
  }
  SECTION("255 bytes each, any byte values") {
    std::string user(255, '\xff'), pass(255, '\0');
    auto out = run(cat({B({5, 1, 2, 1}), len_str(user), len_str(pass), B({5, 1, 0, 1, 10, 0, 0, 1, 0, 22})}));
    REQUIRE(out.request);
    CHECK(out.request->username == user);
    CHECK(out.request->password == pass);
  }
}

TEST_CASE("socks5: Tor's RESOLVE and RESOLVE_PTR") {
  auto resolve = run_all_splits(cat({kNoAuth, B({5, 0xf0, 0, 3}), len_str("torproject.org"), B({0, 0})}));
  CHECK(resolve.request == req(Version::V5, Command::Resolve, Address{std::string("torproject.org")}, 0));

  auto ptr4 = run_all_splits(cat({kNoAuth, B({5, 0xf1, 0, 1, 192, 0, 2, 7, 0, 0})}));
  CHECK(ptr4.request == req(Version::V5, Command::ResolvePtr, Address{Ipv4{192, 0, 2, 7}}, 0));

  // An address written as text is converted (tor accepts it as a string).
  auto ptr_text = run(cat({kNoAuth, B({5, 0xf1, 0, 3}), len_str("192.0.2.7"), B({0, 0})}));
  CHECK(ptr_text.request == ptr4.request);
  auto ptr6 = run(cat({kNoAuth, B({5, 0xf1, 0, 3}), len_str("[::1]"), B({0, 0})}));
  REQUIRE(ptr6.request);
  CHECK(ptr6.request->address == Address{Ipv6{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}});
}

TEST_CASE("socks5: the longest hostname (255 bytes) is valid, a longer one cannot be encoded") {
  std::string label(63, 'a');
  std::string name = label + "." + label + "." + label + "." + std::string(63, 'b');
  REQUIRE(name.size() == 255);
  Bytes request = cat({B({5, 1, 0, 3}), len_str(name), B({1, 0xbb})});
  // The length byte caps the name: what follows the port is never part of it.
  auto out = run(cat({kNoAuth, request, S("xyz")}));
  CHECK(out.request == req(Version::V5, Command::Connect, Address{name}, 443));
  CHECK(out.early == S("xyz"));
}

TEST_CASE("socks5: hostnames tor accepts") {
  for (std::string name : {"example.com", "example.com.", "x", "under_score.example", "a-b.c-d", "1.2.3.4",
                           "2001:db8::1", "[2001:db8::1]", "abcdefghijklmnop.onion", "UPPER.case"}) {
    CAPTURE(name);
    auto out = run(cat({kNoAuth, B({5, 1, 0, 3}), len_str(name), B({0, 80})}));
    CHECK(out.status == Status::Request);
  }
}

TEST_CASE("socks5: optimistic data after the request is returned, whatever the split") {
  Bytes app = S("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n");
  Bytes in = cat({kNoAuth, B({5, 1, 0, 1, 93, 184, 216, 34, 0, 80}), app});
  auto out = run_all_splits(in);
  CHECK(out.status == Status::Request);
  CHECK(out.early == app);
}

TEST_CASE("socks5: a large first read (request + 64 KiB of data) is not limited by the handshake buffer") {
  Bytes app(65536, 0xab);
  ServerHandshake hs;
  auto step = hs.feed(cat({kNoAuth, B({5, 1, 0, 1, 10, 0, 0, 1, 0, 80}), app}));
  CHECK(step.status == Status::Request);
  CHECK(step.early_data == app);
  CHECK(hs.buffered() == 0);
  CHECK(hs.finished());
}

TEST_CASE("socks5: each step sends only the bytes of the messages completed so far") {
  ServerHandshake hs;
  auto s1 = hs.feed(B({5, 2, 0}));
  CHECK(s1.status == Status::NeedMore);
  CHECK(s1.to_send.empty());
  auto s2 = hs.feed(B({2, 1, 1}));
  CHECK(s2.status == Status::NeedMore);
  CHECK(s2.to_send == B({5, 2}));
  auto s3 = hs.feed(cat({S("u"), B({1}), S("p"), B({5, 1})}));
  CHECK(s3.to_send == B({1, 0}));
  CHECK(s3.status == Status::NeedMore);
  auto s4 = hs.feed(B({0, 1, 1, 2, 3, 4, 0, 7}));
  CHECK(s4.status == Status::Request);
  CHECK(s4.to_send.empty());
  CHECK(s4.request == req(Version::V5, Command::Connect, Address{Ipv4{1, 2, 3, 4}}, 7, "u", "p"));
}
