// The client side of SOCKS5 (socks::ClientHandshake) against server bytes
// written out by hand from RFC 1928 and RFC 1929.
#include <catch2/catch.hpp>

#include "conflux/socks/client.hpp"

using namespace conflux::socks;
using Bytes = std::vector<std::uint8_t>;

namespace {

ClientHandshake::Step feed(ClientHandshake& h, const Bytes& b) { return h.feed(b); }

}  // namespace

TEST_CASE("SOCKS5 client: username/password, CONNECT to an IPv4, tunnel bytes handed back", "[socks][client]") {
  ClientHandshake h(ClientRequest{Address{Ipv4{127, 0, 0, 1}}, 0x1f90, std::string("cert=x;iat-mode=0"), std::string(1, '\0')});
  auto s = h.start();
  CHECK(s.send == Bytes{5, 1, 2});
  s = feed(h, {5});
  CHECK(s.status == ClientHandshake::Status::NeedMore);
  CHECK(s.send.empty());
  s = feed(h, {2});
  Bytes auth{1, 17};
  for (char c : std::string("cert=x;iat-mode=0")) auth.push_back(static_cast<std::uint8_t>(c));
  auth.push_back(1);
  auth.push_back(0);
  CHECK(s.send == auth);
  s = feed(h, {1, 0});
  CHECK(s.send == Bytes{5, 1, 0, 1, 127, 0, 0, 1, 0x1f, 0x90});
  s = feed(h, {5, 0, 0, 1, 0, 0, 0, 0, 0});
  CHECK(s.status == ClientHandshake::Status::NeedMore);
  s = feed(h, {0, 'h', 'i'});
  CHECK(s.status == ClientHandshake::Status::Connected);
  CHECK(s.rest == Bytes{'h', 'i'});
}

TEST_CASE("SOCKS5 client: no auth, IPv6 and hostname requests, replies with every address type", "[socks][client]") {
  ClientHandshake v6(ClientRequest{Address{Ipv6{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}}, 443, {}, {}});
  CHECK(v6.start().send == Bytes{5, 1, 0});
  auto s = feed(v6, {5, 0});
  CHECK(s.send == Bytes{5, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0xbb});
  Bytes reply{5, 0, 0, 4};
  reply.resize(4 + 16 + 2);
  CHECK(feed(v6, reply).status == ClientHandshake::Status::Connected);

  ClientHandshake name(ClientRequest{Address{std::string("example.com")}, 80, {}, {}});
  (void)name.start();
  s = feed(name, {5, 0});
  CHECK(s.send.size() == 4 + 1 + 11 + 2);
  CHECK(feed(name, {5, 0, 0, 3, 3, 'a', 'b', 'c', 0, 80}).status == ClientHandshake::Status::Connected);
}

TEST_CASE("SOCKS5 client: refusals and bad replies fail with a reason", "[socks][client]") {
  const ClientRequest with_auth{Address{Ipv4{127, 0, 0, 1}}, 1, std::string("u"), std::string("p")};
  const ClientRequest plain{Address{Ipv4{127, 0, 0, 1}}, 1, {}, {}};
  auto failed = [](ClientRequest r, const Bytes& server) {
    ClientHandshake h(std::move(r));
    (void)h.start();
    auto s = h.feed(server);
    return s.status == ClientHandshake::Status::Failed ? s.error : std::string("(not failed)");
  };
  CHECK(failed(with_auth, {5, 0xff}) == "the proxy accepts none of our authentication methods");
  CHECK(failed(with_auth, {5, 0}) == "the proxy accepts none of our authentication methods");
  CHECK(failed(plain, {4, 0}) == "the proxy does not speak SOCKS5");
  CHECK(failed(with_auth, {5, 2, 1, 1}) == "the proxy refused our credentials");
  CHECK(failed(plain, {5, 0, 5, 5, 0, 1, 0, 0, 0, 0, 0, 0}) == "the proxy could not connect (SOCKS5 reply 5)");
  CHECK(failed(plain, {5, 0, 5, 0, 0, 9, 0, 0, 0, 0, 0, 0}) == "a SOCKS5 reply with address type 9");
  CHECK(failed(plain, {5, 0, 4, 0, 0, 1, 0, 0, 0, 0, 0, 0}) == "a bad SOCKS5 reply");
  ClientHandshake bad(ClientRequest{Address{Ipv4{1, 2, 3, 4}}, 1, std::string(""), std::string("p")});
  CHECK(bad.start().status == ClientHandshake::Status::Failed);
  ClientHandshake one_sided(ClientRequest{Address{Ipv4{1, 2, 3, 4}}, 1, std::string("u"), std::nullopt});
  CHECK(one_sided.start().status == ClientHandshake::Status::Failed);
  ClientHandshake port0(ClientRequest{Address{Ipv4{1, 2, 3, 4}}, 0, {}, {}});
  CHECK(port0.start().status == ClientHandshake::Status::Failed);
  // A reply refused mid-way carries its code.
  ClientHandshake h(plain);
  (void)h.start();
  auto s = h.feed(Bytes{5, 0, 5, 2, 0, 1, 0, 0, 0, 0, 0, 0});
  CHECK(s.reply == Reply::NotAllowed);
}
