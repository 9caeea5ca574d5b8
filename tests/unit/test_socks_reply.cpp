// Replies after the request, byte for byte; tor's END-reason mapping; the
// isolation key and debug text.
#include "test_socks_support.hpp"

using namespace conflux::test::socks;
using conflux::cell::EndReason;

TEST_CASE("socks reply: SOCKS5 CONNECT outcome") {
  CHECK(encode_reply(Version::V5, Reply::Succeeded) == B({5, 0, 0, 1, 0, 0, 0, 0, 0, 0}));
  CHECK(encode_reply(Version::V5, Reply::ConnectionRefused) == B({5, 5, 0, 1, 0, 0, 0, 0, 0, 0}));
  Address v4{Ipv4{10, 1, 2, 3}};
  CHECK(encode_reply(Version::V5, Reply::Succeeded, &v4, 0x1234) == B({5, 0, 0, 1, 10, 1, 2, 3, 0x12, 0x34}));
  Address v6{Ipv6{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}};
  CHECK(encode_reply(Version::V5, Reply::Succeeded, &v6, 443) ==
        B({5, 0, 0, 4, 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0xbb}));
  Address name{std::string("a.b")};
  CHECK(encode_reply(Version::V5, Reply::Succeeded, &name, 80) == B({5, 0, 0, 3, 3, 'a', '.', 'b', 0, 80}));
  Address too_long{std::string(256, 'x')}, empty{std::string()};
  CHECK(encode_reply(Version::V5, Reply::Succeeded, &too_long, 80) == B({5, 0, 0, 1, 0, 0, 0, 0, 0, 0}));
  CHECK(encode_reply(Version::V5, Reply::Succeeded, &empty, 80) == B({5, 0, 0, 1, 0, 0, 0, 0, 0, 0}));
}

TEST_CASE("socks reply: SOCKS4 collapses every failure to 91") {
  CHECK(encode_reply(Version::V4, Reply::Succeeded) == B({0, 90, 0, 0, 0, 0, 0, 0}));
  for (int r = 1; r <= 8; ++r) CHECK(encode_reply(Version::V4, static_cast<Reply>(r)) == kV4Rejected);
  Address v4{Ipv4{10, 1, 2, 3}};
  CHECK(encode_reply(Version::V4, Reply::Succeeded, &v4, 80) == B({0, 90, 0, 80, 10, 1, 2, 3}));
  Address v6{Ipv6{}};
  CHECK(encode_reply(Version::V4, Reply::Succeeded, &v6, 80) == B({0, 90, 0, 0, 0, 0, 0, 0}));
}

TEST_CASE("socks reply: RESOLVE and RESOLVE_PTR answers") {
  CHECK(encode_resolve_reply(Version::V5, Address{Ipv4{93, 184, 216, 34}}) ==
        B({5, 0, 0, 1, 93, 184, 216, 34, 0, 0}));
  Ipv6 six{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  Bytes expect6 = cat({B({5, 0, 0, 4}), Bytes(six.begin(), six.end()), B({0, 0})});
  CHECK(encode_resolve_reply(Version::V5, Address{six}) == expect6);
  CHECK(encode_resolve_reply(Version::V5, Address{std::string("one.one.one.one")}) ==
        cat({B({5, 0, 0, 3}), len_str("one.one.one.one"), B({0, 0})}));
  CHECK(encode_resolve_reply(Version::V5, Address{std::string(256, 'x')}) == v5_error(4));
  CHECK(encode_resolve_reply(Version::V4, Address{Ipv4{1, 2, 3, 4}}) == B({0, 90, 0, 0, 1, 2, 3, 4}));
  CHECK(encode_resolve_reply(Version::V4, Address{six}) == kV4Rejected);
  CHECK(encode_resolve_reply(Version::V4, Address{std::string("a.example")}) == kV4Rejected);
}

TEST_CASE("socks reply: END reasons map as tor's stream_end_reason_to_socks5_response") {
  struct Row {
    EndReason reason;
    Reply reply;
  };
  const Row table[] = {
      {EndReason::Misc, Reply::GeneralFailure},
      {EndReason::ResolveFailed, Reply::HostUnreachable},
      {EndReason::ConnectRefused, Reply::ConnectionRefused},
      {EndReason::ExitPolicy, Reply::NotAllowed},
      {EndReason::Destroy, Reply::GeneralFailure},
      {EndReason::Done, Reply::ConnectionRefused},
      {EndReason::Timeout, Reply::TtlExpired},
      {EndReason::NoRoute, Reply::HostUnreachable},
      {EndReason::Hibernating, Reply::GeneralFailure},
      {EndReason::Internal, Reply::GeneralFailure},
      {EndReason::ResourceLimit, Reply::GeneralFailure},
      {EndReason::ConnReset, Reply::ConnectionRefused},
      {EndReason::TorProtocol, Reply::GeneralFailure},
      {EndReason::NotDirectory, Reply::GeneralFailure},
  };
  for (const auto& row : table) {
    CAPTURE(static_cast<int>(row.reason));
    CHECK(reply_for_end_reason(row.reason) == row.reply);
  }
  CHECK(reply_for_end_reason(static_cast<EndReason>(0)) == Reply::GeneralFailure);
  CHECK(reply_for_end_reason(static_cast<EndReason>(200)) == Reply::GeneralFailure);
}

TEST_CASE("socks isolation key: length-prefixed, empty equals absent, SOCKS4 userid is a username") {
  auto key = [](std::optional<std::string> u, std::optional<std::string> p) {
    return isolation_key(req(Version::V5, Command::Connect, Address{Ipv4{1, 1, 1, 1}}, 1, u, p));
  };
  CHECK(key(std::nullopt, std::nullopt).empty());
  CHECK(key(std::string(), std::string()).empty());
  CHECK(key("ab", "c") != key("a", "bc"));
  CHECK(key("a", std::nullopt) == key("a", std::string()));
  CHECK(key("a", std::nullopt) != key(std::nullopt, "a"));
  auto v4 = req(Version::V4, Command::Connect, Address{Ipv4{1, 1, 1, 1}}, 1, "a");
  CHECK(isolation_key(v4) == key("a", std::nullopt));
}

TEST_CASE("socks to_string and address helpers") {
  CHECK(to_string(Address{Ipv4{192, 0, 2, 1}}) == "192.0.2.1");
  CHECK(to_string(Address{Ipv6{}}) == "[::]");
  CHECK(to_string(Address{std::string("a\nb\\")}) == "a\\x0ab\\x5c");
  CHECK(parse_ip_literal("10.0.0.1") == Address{Ipv4{10, 0, 0, 1}});
  CHECK(parse_ip_literal("[::1]") == parse_ip_literal("::1"));
  CHECK(!parse_ip_literal("example.com"));
  CHECK(!parse_ip_literal("1.2.3"));
  CHECK(!parse_ip_literal(std::string("1.2.3.4\0", 8)));
  CHECK(is_valid_destination("example.com."));
  CHECK(!is_valid_destination(""));
  CHECK(!is_valid_destination(std::string(256, 'a')));
}
