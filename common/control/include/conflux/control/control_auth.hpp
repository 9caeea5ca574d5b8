#pragma once
// Who may use a control connection (control-spec 3.5, 3.21, 3.24), as tor
// decides it. Before authenticating a controller may send PROTOCOLINFO
// (once), AUTHCHALLENGE, AUTHENTICATE and QUIT; anything else is answered
// "514 Authentication required." and the connection closed. A failed
// AUTHENTICATE is answered 515 and closed. After AUTHCHALLENGE the next
// command must be AUTHENTICATE.
//
// Methods, as tor offers them: COOKIE and SAFECOOKIE when there is a cookie
// (CookieAuthentication 1: 32 random bytes in the cookie file),
// HASHEDPASSWORD when HashedControlPassword values are set, NULL when
// neither is (any AUTHENTICATE succeeds, as tor's does).
//
// SAFECOOKIE: the controller sends a 32-byte client nonce; we answer
// SERVERHASH = HMAC-SHA256("Tor safe cookie authentication
// server-to-controller hash", cookie | client nonce | server nonce) and our
// nonce; it proves the cookie with HMAC-SHA256("Tor safe cookie
// authentication controller-to-server hash", the same).
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "conflux/control/control_reader.hpp"

namespace conflux::control {

inline constexpr std::size_t kCookieLen = 32;
using ControlCookie = std::array<std::uint8_t, kCookieLen>;

struct ControlAuthConfig {
  std::optional<ControlCookie> cookie;
  std::string cookie_file;                    // named in PROTOCOLINFO
  std::vector<std::string> hashed_passwords;  // "16:..." (control_password.hpp)
  std::string version;                        // PROTOCOLINFO's VERSION Tor="..."
};

class ControlAuth {
 public:
  // `random` gives the server nonces (32 bytes each).
  ControlAuth(ControlAuthConfig config, std::function<ControlCookie()> random)
      : config_(std::move(config)), random_(std::move(random)) {}

  struct Answer {
    std::string reply;
    bool close = false;
  };
  // The gate's answer, or nullopt for a command of an authenticated
  // controller that is not the gate's (the caller answers it).
  [[nodiscard]] std::optional<Answer> on_command(const ControlCommand& cmd);
  [[nodiscard]] bool authenticated() const noexcept { return authenticated_; }

 private:
  [[nodiscard]] Answer protocolinfo();
  [[nodiscard]] Answer authchallenge(const ControlCommand& cmd);
  [[nodiscard]] Answer authenticate(const ControlCommand& cmd);
  [[nodiscard]] bool secret_accepted(const std::vector<std::uint8_t>& secret) const;

  ControlAuthConfig config_;
  std::function<ControlCookie()> random_;
  bool authenticated_ = false;
  bool protocolinfo_seen_ = false;
  // After AUTHCHALLENGE: the hash the controller must send.
  std::optional<std::array<std::uint8_t, 32>> expected_client_hash_;
};

}  // namespace conflux::control
