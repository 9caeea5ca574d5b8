#pragma once
// What conflux-proxy uses when the torrc names no directory: the public Tor
// network's directory authorities and fallback directory caches, as tor
// 0.4.9 has them built in (src/default_directory_lines.cpp says where the
// lines come from). They are tor-syntax DirAuthority and FallbackDir lines,
// parsed by the same functions as a torrc's, so they are used exactly as if
// the user had written them. Tests never use them: they configure
// DirAuthority lines for networks on 127.0.0.1.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/config/fallback_dir.hpp"
#include "conflux/config/option_values.hpp"

namespace conflux::config {

[[nodiscard]] std::span<const std::string_view> default_dir_authority_lines() noexcept;
[[nodiscard]] std::span<const std::string_view> default_fallback_dir_lines() noexcept;

// The lines parsed (they always parse: a unit test checks every one).
[[nodiscard]] std::vector<DirAuthorityLine> default_dir_authorities();
[[nodiscard]] std::vector<FallbackDirLine> default_fallback_dirs();

// Who runs the program, for the defaults that depend on it. This layer does
// no I/O: the program reads it (config/program.hpp user_environment()).
struct UserEnvironment {
  bool is_root = false;
  std::string home;  // $HOME; empty when unset
};

// tor's rule for its own default (~/.tor, or /var/lib/tor for root), with
// our name: /var/lib/conflux-proxy for root, else $HOME/.conflux-proxy; ""
// when neither applies (no HOME), and DataDirectory must then be given.
[[nodiscard]] std::string default_proxy_data_directory(const UserEnvironment& env);
// conflux-relay's, which is tor's rule with tor's place taken: /var/lib/conflux
// for root (the packaged service sets it in its defaults torrc, as Debian's tor
// does), else $HOME/.conflux. The relay is what /etc/conflux/torrc configures;
// the proxy keeps names of its own so that both can run on one machine.
[[nodiscard]] std::string default_relay_data_directory(const UserEnvironment& env);

}  // namespace conflux::config
