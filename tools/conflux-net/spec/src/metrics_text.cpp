#include "conflux/netspec/metrics_text.hpp"

#include <charconv>

namespace conflux::netspec {

std::optional<double> find_metric(std::string_view text, std::string_view name) noexcept {
  while (!text.empty()) {
    const auto eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    if (line.empty() || line.front() == '#' || line.substr(0, name.size()) != name) continue;
    line.remove_prefix(name.size());
    if (!line.empty() && line.front() == '{') {
      const auto close = line.find('}');
      if (close == std::string_view::npos) continue;
      line.remove_prefix(close + 1);
    }
    if (line.empty() || (line.front() != ' ' && line.front() != '\t')) continue;  // a longer name
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    const auto end = line.find_first_of(" \t\r");
    const auto number = line.substr(0, end);
    double v = 0;
    const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
    if (ec != std::errc() || ptr != number.data() + number.size()) return std::nullopt;
    return v;
  }
  return std::nullopt;
}

}  // namespace conflux::netspec
