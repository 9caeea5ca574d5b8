// From SOCKS requests to relay messages and back: the BEGIN or RESOLVE a
// request opens with, and the replies built from what the exit answered.
#include <catch2/catch.hpp>

#include "conflux/client/socks_requests.hpp"

using namespace conflux;

namespace {

socks::Request request(socks::Address a, std::uint16_t port, socks::Command cmd = socks::Command::Connect,
                       socks::Version v = socks::Version::V5) {
  socks::Request r;
  r.version = v;
  r.command = cmd;
  r.address = std::move(a);
  r.port = port;
  return r;
}

}  // namespace

TEST_CASE("CONNECT opens with BEGIN carrying the destination as the client gave it") {
  auto host = client::opening_message(request({std::string("example.com")}, 443));
  const auto* b = std::get_if<cell::BeginMsg>(&host);
  REQUIRE(b != nullptr);
  CHECK(b->host == "example.com");
  CHECK(b->kind == cell::BeginAddrKind::Hostname);
  CHECK(b->port == 443);
  CHECK(b->flags == cell::kBeginFlagIpv6Ok);

  auto v4 = client::opening_message(request({socks::Ipv4{10, 1, 2, 3}}, 80));
  REQUIRE(std::get_if<cell::BeginMsg>(&v4) != nullptr);
  CHECK(std::get<cell::BeginMsg>(v4).host == "10.1.2.3");
  CHECK(std::get<cell::BeginMsg>(v4).kind == cell::BeginAddrKind::Ipv4);

  socks::Ipv6 six{};
  six[0] = 0x20;
  six[1] = 0x01;
  six[2] = 0x0d;
  six[3] = 0xb8;
  six[15] = 1;
  auto v6 = client::opening_message(request({six}, 22));
  REQUIRE(std::get_if<cell::BeginMsg>(&v6) != nullptr);
  CHECK(std::get<cell::BeginMsg>(v6).host == "2001:db8::1");  // no brackets in BEGIN's model
  CHECK(std::get<cell::BeginMsg>(v6).kind == cell::BeginAddrKind::Ipv6);
  CHECK(!client::is_resolve(request({six}, 22)));
}

TEST_CASE("RESOLVE and RESOLVE_PTR open with RESOLVE, PTR asks for the reverse name") {
  auto fwd = client::opening_message(request({std::string("example.com")}, 0, socks::Command::Resolve));
  REQUIRE(std::get_if<cell::ResolveMsg>(&fwd) != nullptr);
  CHECK(std::get<cell::ResolveMsg>(fwd).name == "example.com");

  auto ptr4 = client::opening_message(request({socks::Ipv4{127, 0, 0, 1}}, 0, socks::Command::ResolvePtr));
  CHECK(std::get<cell::ResolveMsg>(ptr4).name == "1.0.0.127.in-addr.arpa");

  socks::Ipv6 six{};
  six[15] = 1;
  auto ptr6 = client::opening_message(request({six}, 0, socks::Command::ResolvePtr));
  CHECK(std::get<cell::ResolveMsg>(ptr6).name ==
        "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.ip6.arpa");
  CHECK(cell::is_reverse_lookup_name(std::get<cell::ResolveMsg>(ptr6).name));
  CHECK(client::is_resolve(request({six}, 0, socks::Command::ResolvePtr)));
}

TEST_CASE("replies: success, failure codes, and the first usable RESOLVED answer") {
  const auto r5 = request({std::string("example.com")}, 80);
  CHECK(client::success_reply(r5) == std::vector<std::uint8_t>{5, 0, 0, 1, 0, 0, 0, 0, 0, 0});
  CHECK(client::failure_reply(r5, socks::Reply::HostUnreachable) == std::vector<std::uint8_t>{5, 4, 0, 1, 0, 0, 0, 0, 0, 0});
  const auto r4 = request({socks::Ipv4{1, 2, 3, 4}}, 80, socks::Command::Connect, socks::Version::V4);
  CHECK(client::failure_reply(r4, socks::Reply::ConnectionRefused) == std::vector<std::uint8_t>{0, 91, 0, 0, 0, 0, 0, 0});

  const auto resolve = request({std::string("example.com")}, 0, socks::Command::Resolve);
  cell::ResolvedMsg answers;
  // An error answer and a malformed one are skipped; the IPv4 answer is used.
  answers.answers.push_back({cell::ResolvedType::ErrorTransient, {'x'}, 0});
  answers.answers.push_back({cell::ResolvedType::Ipv4, {1, 2, 3}, 60});
  answers.answers.push_back({cell::ResolvedType::Ipv4, {93, 184, 216, 34}, 60});
  CHECK(client::resolved_reply(resolve, answers) == std::vector<std::uint8_t>{5, 0, 0, 1, 93, 184, 216, 34, 0, 0});

  cell::ResolvedMsg none;
  none.answers.push_back({cell::ResolvedType::ErrorNontransient, {'n', 'o'}, 0});
  CHECK(client::resolved_reply(resolve, none) == std::vector<std::uint8_t>{5, 4, 0, 1, 0, 0, 0, 0, 0, 0});

  const auto ptr = request({socks::Ipv4{127, 0, 0, 1}}, 0, socks::Command::ResolvePtr);
  cell::ResolvedMsg name;
  name.answers.push_back({cell::ResolvedType::Hostname, {'l', 'o'}, 60});
  CHECK(client::resolved_reply(ptr, name) == std::vector<std::uint8_t>{5, 0, 0, 3, 2, 'l', 'o', 0, 0});
}
