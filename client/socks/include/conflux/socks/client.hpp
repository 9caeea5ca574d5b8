#pragma once
// The client side of SOCKS5 (RFC 1928) with username/password (RFC 1929),
// sans-I/O: how we reach a bridge through a pluggable transport's SOCKS
// listener (pt-spec 3.5: the bridge line's arguments travel as the
// credentials, conflux/pt/pt_env.hpp), and the start of any outbound proxy.
// Bytes to send come out of start() and feed(); the server's bytes go into
// feed(). Only what is needed is read: bytes after the reply are the
// tunnel's and are handed back (Step::rest).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/socks/types.hpp"

namespace conflux::socks {

struct ClientRequest {
  Address address;  // where the proxy should connect (an IP for a bridge)
  std::uint16_t port = 0;
  // Both or neither; 1..255 bytes each (a password may be the single NUL
  // byte pt-spec asks for when everything fits in the username).
  std::optional<std::string> username;
  std::optional<std::string> password;
};

class ClientHandshake {
 public:
  enum class Status : std::uint8_t { NeedMore, Connected, Failed };
  struct Step {
    Status status = Status::NeedMore;
    std::vector<std::uint8_t> send;  // bytes to write now
    std::vector<std::uint8_t> rest;  // after Connected: bytes that already belong to the tunnel
    std::string error;               // after Failed: why (no destination in it)
    std::optional<Reply> reply;      // the server's REP, when it sent one
  };

  explicit ClientHandshake(ClientRequest request) : request_(std::move(request)) {}

  // The greeting. Failed when the request cannot be sent (bad lengths).
  [[nodiscard]] Step start();
  [[nodiscard]] Step feed(std::span<const std::uint8_t> bytes);

 private:
  enum class Phase : std::uint8_t { Method, Auth, Reply, Done };
  [[nodiscard]] Step fail(std::string why);
  [[nodiscard]] std::vector<std::uint8_t> connect_request() const;
  [[nodiscard]] Step on_method();
  [[nodiscard]] Step on_auth();
  [[nodiscard]] Step on_reply();

  ClientRequest request_;
  Phase phase_ = Phase::Method;
  std::vector<std::uint8_t> in_;
};

}  // namespace conflux::socks
