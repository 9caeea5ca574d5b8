#pragma once
// Shared by the proxy option tests: the two lines every proxy config needs
// (tests add theirs from line 3 on), identities, and build helpers.
#include <catch2/catch.hpp>
#include <string>

#include "conflux/config/proxy_options.hpp"

namespace conflux::config::test {

// An authority in tor's form: its v3ident, then its relay's RSA fingerprint.
inline constexpr const char* kAuthV3 = "DB8EB34B0489A504CA284D48B1E6A42BB7EF46A5";
inline constexpr const char* kAuthId = "E8DABF3B0AEDDB386DD7B66B59A02AAFE1F48731";
inline constexpr const char* kOtherId = "00112233445566778899AABBCCDDEEFF00112233";
inline constexpr const char* kBridgeId = "FFEEDDCCBBAA99887766554433221100FFEEDDCC";
// Our former form of the line (an Ed25519 identity), refused since issue 15.
inline constexpr const char* kOldAuthEd25519 = "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo";

inline const std::string kProxyBase = std::string("DataDirectory /var/lib/conflux-proxy\nDirAuthority auth1 orport=9001 "
                                                  "v3ident=") +
                                      kAuthV3 + " 127.0.0.1:9030 " + kAuthId + "\n";

inline Result<ProxyOptions, ConfigErrors> proxy_build(const std::string& text, const UserEnvironment& env = {}) {
  auto entries = parse_torrc_text(text, "torrc");
  if (!entries) FAIL("parse error: " << entries.error().to_string());
  return proxy_options_from_entries(*entries, "torrc", env);
}

inline ProxyOptions proxy_ok(const std::string& extra) {
  auto r = proxy_build(kProxyBase + extra);
  if (!r) FAIL("unexpected error: " << r.error().front().to_string());
  return *r;
}

// The single error of a config whose offending line is `extra` (line 3).
inline ConfigError proxy_bad(const std::string& extra) {
  auto r = proxy_build(kProxyBase + extra);
  REQUIRE_FALSE(r);
  REQUIRE(r.error().size() == 1);
  return r.error().front();
}

}  // namespace conflux::config::test
