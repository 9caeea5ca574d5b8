#pragma once
// A link's prelude (net::ClientLink::Prelude) that asks a pluggable
// transport's SOCKS5 listener to connect to a bridge, with the bridge line's
// arguments as the username/password (pt-spec 3.5), before TLS starts inside
// the tunnel.
#include <optional>
#include <string>

#include "conflux/net/client_link.hpp"
#include "conflux/socks/client.hpp"

namespace conflux::client {

[[nodiscard]] net::ClientLink::Prelude socks5_prelude(socks::ClientRequest request);

}  // namespace conflux::client
