#pragma once
// Shared by the proxy option tests: the two lines every proxy config needs
// (tests add theirs from line 3 on), identities, and build helpers.
#include <catch2/catch.hpp>
#include <string>

#include "conflux/config/proxy_options.hpp"

namespace conflux::config::test {

inline constexpr const char* kAuthId = "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo";
inline constexpr const char* kOtherId = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
inline constexpr const char* kBridgeId = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100";

inline const std::string kProxyBase =
    std::string("DataDirectory /var/lib/conflux-proxy\nDirAuthority auth1 orport=9001 127.0.0.1:9030 ") + kAuthId +
    "\n";

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
