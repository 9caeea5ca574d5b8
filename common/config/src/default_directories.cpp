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

namespace {

std::string data_directory(const UserEnvironment& env, std::string_view name) {
  if (env.is_root) return "/var/lib/" + std::string(name);
  if (env.home.empty()) return {};
  std::string dir = env.home;
  if (dir.back() != '/') dir += '/';
  return dir + "." + std::string(name);
}

}  // namespace

std::string default_proxy_data_directory(const UserEnvironment& env) { return data_directory(env, "conflux-proxy"); }

std::string default_relay_data_directory(const UserEnvironment& env) { return data_directory(env, "conflux"); }

}  // namespace conflux::config
