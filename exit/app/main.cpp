// conflux-relay: the relay core and, with ExitRelay 1, the exit module.
#include <csignal>
#include <iostream>

#include "conflux/keys/relay_keys.hpp"
#include "conflux/log/log.hpp"
#include "conflux/net/asio.hpp"
#include "conflux/net/clock.hpp"
#include "relay_config.hpp"
#include "relay_process.hpp"

using namespace conflux;

int main(int argc, char** argv) {
  auto decision = relay::decide_startup(argc, argv);
  if (!decision.run) return decision.exit_status;
  relay::StartupConfig config = std::move(*decision.run);
  config.options.control.version = relay::control_version();

  try {
    log::configure(relay::log_destinations(config.options));
  } catch (const std::exception& e) {
    std::cerr << "conflux-relay: " << e.what() << "\n";
    return 1;
  }
  log::write(log::Severity::Notice, std::string("conflux-relay ") + relay::kVersion + " starting.");

  net::SystemClock clock;
  auto keys = keys::load_or_create_relay_keys(config.options.data_directory, clock.unix_seconds());
  if (!keys) {
    log::write(log::Severity::Err, "Cannot load or create keys: " + keys.error().message());
    log::shutdown();
    return 1;
  }

  net::asio::io_context io;
  int status = 0;
  {
    relay::RelayProcess relay(io, clock, std::move(config), std::move(keys).value());
    // The handlers exist before start() logs that the relay is up: a SIGHUP
    // sent as soon as that line shows must reach reload(), not SIGHUP's
    // default action, which ends the process. They only run inside io.run().
    net::asio::signal_set stop_signals(io, SIGINT, SIGTERM);
    stop_signals.async_wait([&](const boost::system::error_code& ec, int sig) {
      if (ec) return;
      log::write(log::Severity::Notice, std::string("Catching signal ") + (sig == SIGINT ? "INT" : "TERM") +
                                            ", exiting cleanly.");
      relay.log_counters(log::Severity::Notice);
      relay.stop();
      io.stop();
    });
    net::asio::signal_set reload_signal(io, SIGHUP);
    std::function<void()> arm_reload = [&] {
      reload_signal.async_wait([&](const boost::system::error_code& ec, int) {
        if (ec) return;
        relay.reload();
        arm_reload();
      });
    };
    arm_reload();
    net::asio::signal_set dump_signal(io, SIGUSR1);
    std::function<void()> arm_dump = [&] {
      dump_signal.async_wait([&](const boost::system::error_code& ec, int) {
        if (ec) return;
        relay.log_counters(log::Severity::Notice);
        arm_dump();
      });
    };
    arm_dump();
    if (!relay.start()) {
      status = 1;
    } else {
      io.run();
    }
  }
  log::shutdown();
  return status;
}
