#include "locate.hpp"

#include <unistd.h>

#include <cstdlib>
#include <vector>

namespace conflux::netapp {

namespace fs = std::filesystem;

namespace {

bool executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

fs::path find(const std::vector<fs::path>& candidates) {
  for (const auto& c : candidates)
    if (executable(c)) return fs::absolute(c).lexically_normal();
  return {};
}

}  // namespace

std::optional<Programs> locate_programs(const std::string& bin_dir_flag, std::string& error) {
  Programs p;
  std::error_code ec;
  p.self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) {
    error = "cannot find conflux-net's own path (/proc/self/exe): " + ec.message();
    return std::nullopt;
  }
  std::string bin_dir = bin_dir_flag;
  if (bin_dir.empty())
    if (const char* env = std::getenv("CONFLUX_BIN_DIR"); env != nullptr) bin_dir = env;

  std::vector<fs::path> relay, proxy;
  if (!bin_dir.empty()) {
    const fs::path d(bin_dir);
    relay = {d / "conflux-relay", d / "exit/app/conflux-relay"};
    proxy = {d / "conflux-proxy", d / "client/app/conflux-proxy"};
  } else {
    const auto here = p.self.parent_path();
    const auto build = here.parent_path().parent_path();  // build/X from build/X/tools/conflux-net
    relay = {here / "conflux-relay", build / "exit/app/conflux-relay"};
    proxy = {here / "conflux-proxy", build / "client/app/conflux-proxy"};
  }
  p.relay = find(relay);
  p.proxy = find(proxy);
  if (p.relay.empty()) {
    error = "conflux-relay not found (looked at";
    for (const auto& c : relay) error += " " + c.string();
    error += "); build it, or name its directory with --bin-dir or CONFLUX_BIN_DIR";
    return std::nullopt;
  }
  return p;
}

}  // namespace conflux::netapp
