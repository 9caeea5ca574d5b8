#include "conflux/gui/config_words.hpp"

#include "conflux/config/proxy_options.hpp"

namespace conflux::gui {

std::pair<std::string, std::string> bridge_transport_and_address(std::string_view value) {
  if (auto b = config::parse_bridge_line(value)) return {b->transport, b->address.to_string()};
  const auto words = config::split_words(value);
  return {"", words.empty() ? std::string() : std::string(words.front())};
}

}  // namespace conflux::gui
