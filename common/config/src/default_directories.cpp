#include "conflux/config/default_directories.hpp"

namespace conflux::config {

std::vector<DirAuthorityLine> default_dir_authorities() {
  std::vector<DirAuthorityLine> out;
  for (auto line : default_dir_authority_lines())
    if (auto a = parse_dir_authority(line)) out.push_back(std::move(*a));
  return out;
}

std::vector<FallbackDirLine> default_fallback_dirs() {
  std::vector<FallbackDirLine> out;
  for (auto line : default_fallback_dir_lines())
    if (auto f = parse_fallback_dir(line)) out.push_back(*f);
  return out;
}

std::string default_proxy_data_directory(const UserEnvironment& env) {
  if (env.is_root) return "/var/lib/conflux-proxy";
  if (env.home.empty()) return {};
  std::string dir = env.home;
  if (dir.back() != '/') dir += '/';
  return dir + ".conflux-proxy";
}

}  // namespace conflux::config
