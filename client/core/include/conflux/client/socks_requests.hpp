#pragma once
// Between a SOCKS request and the relay messages that serve it: the
// opening BEGIN or RESOLVE, and the SOCKS replies built from what the exit
// answered.
#include <string>
#include <vector>

#include "conflux/cell/relay_msg.hpp"
#include "conflux/socks/reply.hpp"
#include "conflux/socks/types.hpp"

namespace conflux::client {

[[nodiscard]] bool is_resolve(const socks::Request& r);
// BEGIN (hostname, IPv4 or IPv6 as the client gave it; IPv6 allowed at the
// exit, as tor's clients ask) or RESOLVE (a name, or the in-addr.arpa /
// ip6.arpa name of an address for RESOLVE_PTR).
[[nodiscard]] cell::RelayMsg opening_message(const socks::Request& r);
[[nodiscard]] std::vector<std::uint8_t> success_reply(const socks::Request& r);
[[nodiscard]] std::vector<std::uint8_t> failure_reply(const socks::Request& r, socks::Reply why);
// The first usable answer of RESOLVED; host unreachable when there is none.
[[nodiscard]] std::vector<std::uint8_t> resolved_reply(const socks::Request& r, const cell::ResolvedMsg& answer);

}  // namespace conflux::client
