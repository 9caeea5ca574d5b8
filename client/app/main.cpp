// conflux-proxy: the SOCKS onion proxy end users run.
#include <csignal>
#include <iostream>
#include <optional>

#include "conflux/client/proxy_runtime.hpp"
#include "conflux/log/log.hpp"
#include "conflux/net/asio.hpp"
#include "conflux/net/clock.hpp"
#include "owning_controller.hpp"
#include "proxy_config.hpp"

using namespace conflux;

int main(int argc, char** argv) {
  auto decision = proxy::decide_startup(argc, argv);
  if (!decision.run) return decision.exit_status;
  config::ProxyOptions options = std::move(*decision.run);
  const std::uint32_t owner = options.owning_controller_process;
  options.control.version = proxy::control_version();

  try {
    log::configure(proxy::log_destinations(options));
  } catch (const std::exception& e) {
    std::cerr << "conflux-proxy: " << e.what() << "\n";
    return 1;
  }
  log::write(log::Severity::Notice, std::string("conflux-proxy ") + proxy::kVersion + " starting.");
  for (const auto& w : options.warnings) log::write(log::Severity::Warn, w.to_string());

  net::SystemClock clock;
  net::asio::io_context io;
  int status = 0;
  {
    client::ProxyRuntime runtime(io, clock, std::move(options),
                                 [](log::Severity s, std::string_view m) { log::write(s, m); });
    if (!runtime.start()) {
      status = 1;
    } else {
      net::asio::signal_set stop_signals(io, SIGINT, SIGTERM);
      stop_signals.async_wait([&](const boost::system::error_code& ec, int sig) {
        if (ec) return;
        log::write(log::Severity::Notice,
                   std::string("Catching signal ") + (sig == SIGINT ? "INT" : "TERM") + ", exiting cleanly.");
        runtime.log_heartbeat();
        runtime.stop();
        io.stop();
      });
      net::asio::signal_set dump_signal(io, SIGUSR1);
      std::function<void()> arm_dump = [&] {
        dump_signal.async_wait([&](const boost::system::error_code& ec, int) {
          if (ec) return;
          runtime.log_heartbeat();
          arm_dump();
        });
      };
      arm_dump();
      // A heartbeat line every 10 minutes, so a log shows the proxy alive and busy.
      net::asio::steady_timer heartbeat(io);
      std::function<void()> arm_heartbeat = [&] {
        heartbeat.expires_after(std::chrono::minutes(10));
        heartbeat.async_wait([&](const boost::system::error_code& ec) {
          if (ec) return;
          runtime.log_heartbeat();
          arm_heartbeat();
        });
      };
      arm_heartbeat();
      // As SIGTERM once the owning controller is gone.
      std::optional<proxy::OwningControllerWatch> owner_watch;
      if (owner != 0) owner_watch.emplace(io, owner, [] { std::raise(SIGTERM); });
      io.run();
    }
  }
  log::write(log::Severity::Notice, "conflux-proxy stopped.");
  log::shutdown();
  return status;
}
