#include "conflux/control/control_auth.hpp"

#include "conflux/bytes/hex.hpp"
#include "conflux/control/control_args.hpp"
#include "conflux/control/control_password.hpp"
#include "conflux/control/control_reply.hpp"
#include "conflux/crypto/ct.hpp"
#include "conflux/crypto/digest.hpp"

namespace conflux::control {

namespace {

constexpr std::string_view kServerKey = "Tor safe cookie authentication server-to-controller hash";
constexpr std::string_view kClientKey = "Tor safe cookie authentication controller-to-server hash";

std::array<std::uint8_t, 32> safecookie_hmac(std::string_view key, const ControlCookie& cookie,
                                             const std::vector<std::uint8_t>& client_nonce,
                                             const ControlCookie& server_nonce) {
  std::vector<std::uint8_t> msg(cookie.begin(), cookie.end());
  msg.insert(msg.end(), client_nonce.begin(), client_nonce.end());
  msg.insert(msg.end(), server_nonce.begin(), server_nonce.end());
  return crypto::hmac_sha256(bytes::ByteSpan(reinterpret_cast<const std::uint8_t*>(key.data()), key.size()), msg);
}

// An AUTHENTICATE or AUTHCHALLENGE value: a QuotedString's bytes, or hex.
std::optional<std::vector<std::uint8_t>> secret_of(const ControlArg& arg) {
  if (arg.quoted) return std::vector<std::uint8_t>(arg.value.begin(), arg.value.end());
  return bytes::from_hex(arg.value);
}

ControlAuth::Answer closing(int code, std::string_view text) { return {control_line(code, text), true}; }

}  // namespace

std::optional<ControlAuth::Answer> ControlAuth::on_command(const ControlCommand& cmd) {
  if (cmd.keyword == "QUIT") return closing(250, "closing connection");
  if (expected_client_hash_ && cmd.keyword != "AUTHENTICATE")
    return closing(514, "Authentication required.");  // AUTHCHALLENGE wants AUTHENTICATE next
  if (cmd.keyword == "PROTOCOLINFO") {
    if (!authenticated_ && protocolinfo_seen_)
      return closing(514, "Only one PROTOCOLINFO command allowed before authentication.");
    protocolinfo_seen_ = true;
    return protocolinfo();
  }
  if (cmd.keyword == "AUTHENTICATE") return authenticate(cmd);
  if (cmd.keyword == "AUTHCHALLENGE" && !authenticated_) return authchallenge(cmd);
  if (!authenticated_) return closing(514, "Authentication required.");
  return std::nullopt;
}

ControlAuth::Answer ControlAuth::protocolinfo() {
  std::string methods;
  if (config_.cookie) methods = "COOKIE,SAFECOOKIE";
  if (!config_.hashed_passwords.empty()) methods += std::string(methods.empty() ? "" : ",") + "HASHEDPASSWORD";
  if (methods.empty()) methods = "NULL";
  std::string auth = "AUTH METHODS=" + methods;
  if (config_.cookie) auth += " COOKIEFILE=" + quote_control_string(config_.cookie_file);
  ControlReply r;
  r.mid(250, "PROTOCOLINFO 1").mid(250, auth).mid(250, "VERSION Tor=" + quote_control_string(config_.version));
  return {r.end(250, "OK"), false};
}

ControlAuth::Answer ControlAuth::authchallenge(const ControlCommand& cmd) {
  auto args = parse_control_args(cmd.args);
  if (!args || args->size() != 2 || args->at(0).key || args->at(0).value != "SAFECOOKIE")
    return closing(513, "AUTHCHALLENGE only supports SAFECOOKIE authentication");
  if (!config_.cookie) return closing(513, "Cookie authentication is disabled");
  const auto client_nonce = secret_of(args->at(1));
  if (!client_nonce || client_nonce->size() != kCookieLen) return closing(513, "Invalid client nonce");
  const ControlCookie server_nonce = random_();
  const auto server_hash = safecookie_hmac(kServerKey, *config_.cookie, *client_nonce, server_nonce);
  expected_client_hash_ = safecookie_hmac(kClientKey, *config_.cookie, *client_nonce, server_nonce);
  return {control_line(250, "AUTHCHALLENGE SERVERHASH=" + bytes::to_hex(server_hash, true) +
                                " SERVERNONCE=" + bytes::to_hex(server_nonce, true)),
          false};
}

bool ControlAuth::secret_accepted(const std::vector<std::uint8_t>& secret) const {
  if (expected_client_hash_) return crypto::ct_equal(secret, *expected_client_hash_);
  if (!config_.cookie && config_.hashed_passwords.empty()) return true;  // NULL
  if (config_.cookie && crypto::ct_equal(secret, *config_.cookie)) return true;
  const std::string_view password(reinterpret_cast<const char*>(secret.data()), secret.size());
  for (const auto& h : config_.hashed_passwords)
    if (control_password_matches(h, password)) return true;
  return false;
}

ControlAuth::Answer ControlAuth::authenticate(const ControlCommand& cmd) {
  auto args = parse_control_args(cmd.args);
  std::optional<std::vector<std::uint8_t>> secret = std::vector<std::uint8_t>{};
  if (!args || args->size() > 1 || (args->size() == 1 && args->front().key)) {
    secret.reset();
  } else if (args->size() == 1) {
    secret = secret_of(args->front());
  }
  const bool ok = secret && secret_accepted(*secret);
  expected_client_hash_.reset();
  if (!ok) {
    authenticated_ = false;
    return closing(515, secret ? "Authentication failed: Password did not match HashedControlPassword *or* "
                                 "authentication cookie."
                               : "Authentication failed: Invalid hexadecimal encoding. Maybe you tried a plain "
                                 "text password? If so, the standard requires that you put it in double quotes.");
  }
  authenticated_ = true;
  return {control_line(250, "OK"), false};
}

}  // namespace conflux::control
