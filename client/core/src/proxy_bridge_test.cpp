// CONFLUX_TESTBRIDGES (docs/CONTROL.md): each bridge of the Bridge lines is
// asked for its descriptor now, as the proxy asks when it starts (a one-hop
// BEGIN_DIR over the channel to it, made through its transport when there is
// none), and each result is a CONFLUX_BRIDGE event. What a bridge user's
// "test bridges" means: the bridge answers a Tor request, not only a TCP SYN.
#include "conflux/control/control_args.hpp"
#include "proxy_runtime_impl.hpp"

namespace conflux::client {

std::string ProxyRuntime::Impl::test_bridges(std::function<void(std::string)> report) {
  if (options.disable_network) return "DisableNetwork is set";
  if (!options.use_bridges || !bridges) return "No bridges in use (UseBridges 0)";
  if (!bridges_started) return "The bridges' transports are not ready yet";
  bridges->probe([report = std::move(report)](const BridgeTarget& b, std::chrono::milliseconds took,
                                              const std::optional<std::string>& error) {
    std::string body = "CONFLUX_BRIDGE ADDR=" + endpoint_text(b.at) + (error ? " STATUS=FAILED" : " STATUS=OK") +
                       " MS=" + std::to_string(took.count());
    if (error) body += " REASON=" + control::quote_control_string(*error);
    report(std::move(body));
  });
  return {};
}

}  // namespace conflux::client
