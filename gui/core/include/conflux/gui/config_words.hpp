#pragma once
// Small readings of a Bridge value for display. No Qt here.
#include <string>
#include <string_view>
#include <utility>

namespace conflux::gui {

// {transport, address} of a Bridge value ("obfs4 1.2.3.4:443 ID ..." gives
// {"obfs4", "1.2.3.4:443"}; "1.2.3.4:443 ID" gives {"", "1.2.3.4:443"}).
[[nodiscard]] std::pair<std::string, std::string> bridge_transport_and_address(std::string_view value);

}  // namespace conflux::gui
