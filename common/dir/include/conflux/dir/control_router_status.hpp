#pragma once
// The consensus as the control port writes it (control-spec GETINFO ns/*,
// the NEWCONSENSUS event): each router status entry in tor's NS_CONTROL_PORT
// form of dir-spec's r/a/s/w lines (tor's routerstatus_format_entry), which
// stem and nyx parse to name relays by address and fingerprint.
#include <optional>
#include <string>
#include <string_view>

#include "conflux/dir/consensus.hpp"

namespace conflux::dir {

// One entry, each line ended by a newline; empty for a relay without an RSA
// identity (no controller could name it by $FINGERPRINT).
[[nodiscard]] std::string control_router_status(const RouterEntry& r);
// Every entry of the consensus, in its order.
[[nodiscard]] std::string control_router_statuses(const ConsensusBody& body);
// The entry of the relay with this RSA fingerprint ("$" and 40 hex digits, or
// the digits alone) or nickname; nullopt when there is none.
[[nodiscard]] std::optional<std::string> control_router_status_by_id(const ConsensusBody& body, std::string_view fp);
[[nodiscard]] std::optional<std::string> control_router_status_by_name(const ConsensusBody& body,
                                                                       std::string_view nickname);

}  // namespace conflux::dir
