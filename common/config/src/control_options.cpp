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

ValueResult<std::optional<ControlSocketLine>> parse_control_socket(std::string_view text) {
  const auto words = split_words(text);
  if (words.empty()) return Unexpected{std::string("a path is required")};
  if (words.size() == 1 && words[0] == "0") return std::optional<ControlSocketLine>{};
  ControlSocketLine line;
  line.path = std::string(words[0]);
  if (!line.path.starts_with('/')) return Unexpected{"the path must be absolute, got '" + line.path + "'"};
  for (std::size_t i = 1; i < words.size(); ++i) {
    std::string flag(words[i]);
    std::transform(flag.begin(), flag.end(), flag.begin(),
                   [](char ch) { return static_cast<char>(std::tolower(static_cast<unsigned char>(ch))); });
    if (flag == "groupwritable") {
      line.group_writable = true;
    } else if (flag == "worldwritable") {
      line.world_writable = true;
    } else if (flag == "relaxdirmodecheck") {
      line.relax_dir_mode_check = true;
    } else {
      return Unexpected{"unknown flag '" + std::string(words[i]) + "' (GroupWritable, WorldWritable, RelaxDirModeCheck)"};
    }
  }
  return std::optional<ControlSocketLine>(std::move(line));
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
