#include "conflux/config/error.hpp"

namespace conflux::config {

std::string ConfigError::to_string() const {
  std::string out = file.empty() ? std::string(kStringSource) : file;
  if (line != 0) out += ":" + std::to_string(line);
  out += ": ";
  out += message;
  return out;
}

}  // namespace conflux::config
