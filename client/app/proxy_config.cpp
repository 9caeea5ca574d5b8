#include "proxy_config.hpp"

#include <iostream>

#include "conflux/config/file_source.hpp"
#include "conflux/config/program.hpp"

namespace conflux::proxy {
namespace {

constexpr const char* kUsage =
    "Usage: conflux-proxy [-f FILE] [--defaults-torrc FILE] [--Option value]...\n"
    "       conflux-proxy --verify-config [-f FILE] [--Option value]...\n"
    "       conflux-proxy --help | --version | --list-torrc-options\n"
    "\n"
    "The Conflux onion proxy: a SOCKS5/SOCKS4a proxy (default 127.0.0.1:9050) that sends each\n"
    "connection through circuits of Tor-protocol relays, split over Conflux legs when it can.\n"
    "Options are read from FILE (default /etc/conflux/proxy-torrc) in torrc syntax and may be\n"
    "given on the command line as --Option value, which replaces the file's lines for that option.\n"
    "Every option is described in docs/CONFIG.md.\n";

}  // namespace

StartupDecision decide_startup(int argc, const char* const* argv) {
  const config::ProgramInfo program{"conflux-proxy", kVersion, kDefaultTorrc, kUsage, config::list_proxy_options};
  auto cl = config::handle_command_line(program, argc, argv, std::cout, std::cerr);
  if (!cl.load) return {std::nullopt, cl.exit_status};
  config::RealFileSource files;
  auto options = config::load_proxy_options(*cl.load, files, config::user_environment());
  if (!options) {
    config::print_errors(program.name, options.error(), std::cerr);
    return {std::nullopt, 1};
  }
  if (cl.load->action == config::Action::VerifyConfig) {
    config::print_warnings(program.name, options->warnings, std::cerr);
    std::cout << config::kConfigValid;
    return {std::nullopt, 0};
  }
  return {std::move(options).value(), 0};
}

std::vector<log::Destination> log_destinations(const config::ProxyOptions& options) {
  return config::log_destinations(options.logs);
}

}  // namespace conflux::proxy
