#pragma once
// Parsers for one client message each, over the bytes received so far.
// Each returns NeedMore, Done (with the bytes it used) or Fail (with the
// reply to send, possibly empty). Checks run in wire order and look only at
// bytes up to the field they check, so a prefix fails exactly when every
// longer input fails: that makes the result independent of how the input
// was split.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "conflux/bytes/reader.hpp"
#include "conflux/socks/handshake.hpp"
#include "conflux/socks/types.hpp"

namespace conflux::socks::detail {

struct Outcome {
  enum class Kind : std::uint8_t { NeedMore, Done, Fail };
  Kind kind = Kind::NeedMore;
  std::size_t consumed = 0;           // Done
  std::vector<std::uint8_t> reply;    // Fail
  std::string error;                  // Fail

  static Outcome need_more() { return {}; }
  static Outcome done(std::size_t n) { return {Kind::Done, n, {}, {}}; }
  static Outcome fail(std::vector<std::uint8_t> reply, std::string error) {
    return {Kind::Fail, 0, std::move(reply), std::move(error)};
  }
};

// Forward-only view of the received bytes; callers check has() first.
class Cursor {
 public:
  explicit Cursor(bytes::ByteSpan data) noexcept : data_(data) {}
  [[nodiscard]] bool has(std::size_t n) const noexcept { return data_.size() - pos_ >= n; }
  [[nodiscard]] std::size_t position() const noexcept { return pos_; }
  std::uint8_t u8() noexcept { return data_[pos_++]; }
  std::uint16_t u16() noexcept {
    auto v = static_cast<std::uint16_t>((data_[pos_] << 8) | data_[pos_ + 1]);
    pos_ += 2;
    return v;
  }
  bytes::ByteSpan take(std::size_t n) noexcept {
    auto out = data_.subspan(pos_, n);
    pos_ += n;
    return out;
  }
  // Length of the NUL-terminated field here, looking at most max + 1
  // bytes; -1 when no NUL is in the bytes received so far, -2 when the
  // field is longer than max.
  std::ptrdiff_t nul_field(std::size_t max) const noexcept {
    for (std::size_t i = pos_; i < data_.size(); ++i) {
      if (data_[i] == 0) return static_cast<std::ptrdiff_t>(i - pos_);
      if (i - pos_ >= max) return -2;
    }
    return -1;
  }

 private:
  bytes::ByteSpan data_;
  std::size_t pos_ = 0;
};

inline std::string as_string(bytes::ByteSpan b) { return {b.begin(), b.end()}; }

struct Greeting {
  bool no_auth = false;
  bool user_pass = false;
};
Outcome parse_greeting(bytes::ByteSpan data, Greeting& out);
// The server's method selection: 05 02 or 05 00.
std::vector<std::uint8_t> method_choice(bool user_pass);

struct Credentials {
  std::string username;
  std::string password;
};
Outcome parse_userpass(bytes::ByteSpan data, Credentials& out);

Outcome parse_socks5_request(bytes::ByteSpan data, const HandshakeOptions& options, Request& out);
Outcome parse_socks4_request(bytes::ByteSpan data, const HandshakeOptions& options, Request& out);

}  // namespace conflux::socks::detail
