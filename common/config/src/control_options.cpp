#include "conflux/config/control_options.hpp"

#include <algorithm>
#include <cctype>

namespace conflux::config {

ValueResult<PortConfig> parse_control_port(std::string_view text) {
  auto pc = parse_port_config(text, PortFlags::None);
  if (!pc) return pc;
  if (!pc->address) pc->address = IpAddress::v4(127, 0, 0, 1);  // tor's default for ControlPort
  return pc;
}

ValueResult<std::string> parse_hashed_control_password(std::string_view text) {
  // "16:" + hex(8 bytes of salt, 1 count byte, 20 bytes of SHA-1).
  constexpr std::size_t kHexDigits = 2 * (8 + 1 + 20);
  const bool hex = text.size() == 3 + kHexDigits && text.substr(0, 3) == "16:" &&
                   std::all_of(text.begin() + 3, text.end(), [](char c) {
                     return std::isxdigit(static_cast<unsigned char>(c)) != 0;
                   });
  if (!hex) return Unexpected{std::string("not a hashed password (\"16:\" and 58 hex digits, as tor --hash-password prints)")};
  return std::string(text);
}

}  // namespace conflux::config
