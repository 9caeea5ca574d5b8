#pragma once
// Server side of one SOCKS4/4a/5 handshake, sans-I/O.
//
// The runtime reads bytes from the client and passes them to feed(); it
// writes Step::to_send to the client, and then:
//   NeedMore  - read more and feed again;
//   Request   - the request is complete: open the stream, later write
//               encode_reply()/encode_resolve_reply() (reply.hpp). Bytes the
//               client sent after the request are in early_data (optimistic
//               data, to go into the first DATA cells);
//   Close     - close the connection after writing to_send (which may be
//               empty when no valid reply format exists, e.g. a first byte
//               that is not 4 or 5). `error` says why, for a debug log.
// Any split of the input gives the same result: errors are decided at the
// first byte that makes the input invalid. After Request or Close the
// handshake is finished and feed() returns Close without consuming anything.
//
// Bounds: at most kMaxBuffered bytes of an incomplete message are held; the
// longest valid message (an RFC 1929 request, 513 bytes; a SOCKS4a request
// with 255-byte userid and hostname, 520 bytes) always fits.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "conflux/bytes/reader.hpp"
#include "conflux/socks/types.hpp"

namespace conflux::socks {

inline constexpr std::size_t kMaxBuffered = 1024;
inline constexpr std::size_t kMaxUserId = 255;    // SOCKS4 userid, without its NUL
inline constexpr std::size_t kMaxHostname = 255;  // SOCKS4a and SOCKS5 names

struct HandshakeOptions {
  // tor's SafeSocks: refuse requests that carry only an IP address
  // (SOCKS4 without 'a'; SOCKS5 ATYP 1 or 4 other than RESOLVE_PTR), since
  // the application resolved the name itself and may have leaked it.
  bool safe_socks = false;
  // tor's PreferSOCKSNoAuth: when a client offers both methods, choose "no
  // authentication" (then there is no isolation key).
  bool prefer_no_auth = false;
};

class ServerHandshake {
 public:
  struct Step {
    enum class Status : std::uint8_t { NeedMore, Request, Close };
    std::vector<std::uint8_t> to_send;
    Status status = Status::NeedMore;
    std::optional<socks::Request> request;   // when Status::Request
    std::vector<std::uint8_t> early_data;    // when Status::Request
    std::string error;                       // when Status::Close
  };

  ServerHandshake() = default;
  explicit ServerHandshake(HandshakeOptions options) : options_(options) {}

  // Incremental: pass every byte read from the client, in order.
  Step feed(bytes::ByteSpan data);

  // The client closed its side before a request was complete: Close, with
  // nothing to send (tor closes silently too).
  Step end_of_input();

  [[nodiscard]] bool finished() const noexcept { return phase_ == Phase::Done; }
  // Bytes held of an incomplete message (never above kMaxBuffered).
  [[nodiscard]] std::size_t buffered() const noexcept { return buffer_.size(); }

 private:
  enum class Phase : std::uint8_t { Start, Socks5Auth, Socks5Request, Done };

  // Parses complete messages at the front of buffer_; returns true when
  // the handshake finished (Request or Close), false when it needs more.
  bool advance(Step& step);
  void fail(Step& step, std::vector<std::uint8_t> reply, std::string error);

  HandshakeOptions options_{};
  Phase phase_ = Phase::Start;
  std::vector<std::uint8_t> buffer_;
  std::optional<std::string> username_;
  std::optional<std::string> password_;
};

}  // namespace conflux::socks
