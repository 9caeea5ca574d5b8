#pragma once
// A config value as error messages quote it: at most `max` characters, any
// byte outside printable ASCII as '?', so a hostile torrc cannot put control
// characters or megabytes into a log line.
#include <cstddef>
#include <string>
#include <string_view>

namespace conflux::config {

[[nodiscard]] inline std::string shown(std::string_view v, std::size_t max = 40) {
  std::string out;
  for (char c : v.substr(0, max)) out.push_back((c >= 0x20 && c < 0x7f) ? c : '?');
  return out;
}

}  // namespace conflux::config
