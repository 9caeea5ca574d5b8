#pragma once
// Helpers for the test_socks*.cpp files: byte strings, and running a
// handshake over a given split of its input so every split can be compared.
#include <catch2/catch.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/socks/handshake.hpp"
#include "conflux/socks/reply.hpp"

namespace conflux::test::socks {

using namespace conflux::socks;
using Bytes = std::vector<std::uint8_t>;
using Status = ServerHandshake::Step::Status;

inline Bytes B(std::initializer_list<int> v) {
  Bytes out;
  for (int x : v) out.push_back(static_cast<std::uint8_t>(x));
  return out;
}
inline Bytes S(std::string_view s) { return {s.begin(), s.end()}; }
inline Bytes cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}
inline Bytes len_str(std::string_view s) { return cat({B({static_cast<int>(s.size())}), S(s)}); }

// What a runtime would see over the whole connection.
struct Outcome {
  Bytes sent;
  Status status = Status::NeedMore;
  std::optional<Request> request;
  Bytes early;  // early_data plus input not fed after the request
  std::string error;
  friend bool operator==(const Outcome&, const Outcome&) = default;
};

// Feeds `input` cut at the increasing offsets `cuts`.
inline Outcome run_cuts(const Bytes& input, const std::vector<std::size_t>& cuts, HandshakeOptions opt = {}) {
  ServerHandshake hs(opt);
  Outcome out;
  std::size_t from = 0;
  for (std::size_t i = 0; i <= cuts.size(); ++i) {
    std::size_t to = i < cuts.size() ? cuts[i] : input.size();
    auto step = hs.feed(bytes::ByteSpan(input).subspan(from, to - from));
    REQUIRE(hs.buffered() <= kMaxBuffered);
    out.sent.insert(out.sent.end(), step.to_send.begin(), step.to_send.end());
    out.status = step.status;
    from = to;
    if (step.status == Status::Request) {
      out.request = step.request;
      out.early = step.early_data;
      out.early.insert(out.early.end(), input.begin() + static_cast<std::ptrdiff_t>(from), input.end());
      break;
    }
    if (step.status == Status::Close) {
      out.error = step.error;
      break;
    }
  }
  return out;
}

inline Outcome run(const Bytes& input, HandshakeOptions opt = {}) { return run_cuts(input, {}, opt); }

// Every split gives the result of one feed: byte by byte, every single cut,
// and (for short inputs) every pair of cuts.
inline Outcome run_all_splits(const Bytes& input, HandshakeOptions opt = {}) {
  Outcome whole = run(input, opt);
  std::vector<std::size_t> every;
  for (std::size_t i = 1; i < input.size(); ++i) every.push_back(i);
  CHECK(run_cuts(input, every, opt) == whole);
  for (std::size_t i = 1; i < input.size(); ++i) CHECK(run_cuts(input, {i}, opt) == whole);
  if (input.size() <= 40)
    for (std::size_t i = 1; i < input.size(); ++i)
      for (std::size_t j = i + 1; j < input.size(); ++j) CHECK(run_cuts(input, {i, j}, opt) == whole);
  return whole;
}

inline Request req(Version v, Command c, Address a, std::uint16_t port,
                   std::optional<std::string> user = std::nullopt, std::optional<std::string> pass = std::nullopt) {
  return Request{v, c, std::move(a), port, std::move(user), std::move(pass)};
}

// A SOCKS5 error reply: 05 REP 00 01 0.0.0.0:0.
inline Bytes v5_error(int rep) { return B({5, rep, 0, 1, 0, 0, 0, 0, 0, 0}); }
inline const Bytes kV4Rejected = B({0, 91, 0, 0, 0, 0, 0, 0});
inline const Bytes kNoAuth = B({5, 1, 0});  // greeting offering only "no auth"

}  // namespace conflux::test::socks
