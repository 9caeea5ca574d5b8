// SOCKS4 and SOCKS4a requests (including Tor's RESOLVE in SOCKS4a form),
// byte for byte, over every split of the input.
#include "test_socks_support.hpp"

using namespace conflux::test::socks;

namespace {
// VN=4 CD DSTPORT DSTIP
Bytes head(int cd, int port, std::initializer_list<int> ip) {
  return cat({B({4, cd, port >> 8, port & 0xff}), B(ip)});
}
Bytes z(std::string_view s) { return cat({S(s), B({0})}); }
}  // namespace

TEST_CASE("socks4: CONNECT to an IPv4 address with a userid (the example of the SOCKS4 document)") {
  auto out = run_all_splits(cat({head(1, 80, {192, 168, 1, 1}), z("fred")}));
  CHECK(out.status == Status::Request);
  CHECK(out.sent.empty());  // the only reply comes once the stream is open
  CHECK(out.request == req(Version::V4, Command::Connect, Address{Ipv4{192, 168, 1, 1}}, 80, "fred"));
  CHECK(isolation_key(*out.request) == "4:fred0:");
}

TEST_CASE("socks4: an empty userid is no isolation key") {
  auto out = run_all_splits(cat({head(1, 443, {10, 0, 0, 1}), B({0})}));
  REQUIRE(out.request);
  CHECK(!out.request->username);
  CHECK(!out.request->password);
}

TEST_CASE("socks4a: 0.0.0.x (x != 0) means a hostname follows the userid") {
  auto out = run_all_splits(cat({head(1, 80, {0, 0, 0, 1}), z("fred"), z("example.com")}));
  CHECK(out.request == req(Version::V4, Command::Connect, Address{std::string("example.com")}, 80, "fred"));
  auto any_x = run(cat({head(1, 80, {0, 0, 0, 255}), B({0}), z("example.com")}));
  CHECK(any_x.request == req(Version::V4, Command::Connect, Address{std::string("example.com")}, 80));
}

TEST_CASE("socks4a: Tor's RESOLVE (0xF0), port 0 allowed") {
  auto out = run_all_splits(cat({head(0xf0, 0, {0, 0, 0, 1}), B({0}), z("torproject.org")}));
  CHECK(out.request == req(Version::V4, Command::Resolve, Address{std::string("torproject.org")}, 0));
  // With a plain address, as tor accepts it; the runtime can answer it itself.
  auto ip = run(cat({head(0xf0, 0, {1, 2, 3, 4}), B({0})}));
  CHECK(ip.request == req(Version::V4, Command::Resolve, Address{Ipv4{1, 2, 3, 4}}, 0));
}

TEST_CASE("socks4: 255-byte userid and hostname are the longest accepted") {
  std::string user(255, 'u');
  std::string label(63, 'h');
  std::string host = label + "." + label + "." + label + "." + std::string(63, 'h');
  REQUIRE(host.size() == 255);
  Bytes in = cat({head(1, 80, {0, 0, 0, 9}), z(user), z(host)});
  REQUIRE(in.size() == 8 + 256 + 256);
  auto out = run_all_splits(in);
  CHECK(out.request == req(Version::V4, Command::Connect, Address{host}, 80, user));
}

TEST_CASE("socks4: optimistic data after the NUL that ends the request") {
  Bytes app = S("\x16\x03\x01 TLS hello");
  auto plain = run_all_splits(cat({head(1, 443, {93, 184, 216, 34}), z("id"), app}));
  CHECK(plain.early == app);
  auto socks4a = run_all_splits(cat({head(1, 443, {0, 0, 0, 1}), z(""), z("example.com"), app}));
  CHECK(socks4a.early == app);
}

TEST_CASE("socks4: a request waits for its NUL terminators") {
  ServerHandshake hs;
  CHECK(hs.feed(head(1, 80, {0, 0, 0, 1})).status == Status::NeedMore);
  CHECK(hs.feed(S("user")).status == Status::NeedMore);
  CHECK(hs.feed(B({0})).status == Status::NeedMore);  // SOCKS4a: the hostname is still to come
  CHECK(hs.feed(S("example")).status == Status::NeedMore);
  auto step = hs.feed(z(".com"));
  CHECK(step.status == Status::Request);
  CHECK(step.request->address == Address{std::string("example.com")});
}
