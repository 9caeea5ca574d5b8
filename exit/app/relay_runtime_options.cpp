// What a running conflux-relay changes without a restart, on SIGHUP (reload)
// and on a controller's SETCONF (reconfigure): circuit priority, the
// scheduler trace, MaxMemInQueues, the DoS* options, BandwidthRate/Burst,
// Log, ExitPolicy and the exit's resolver (ServerDNS*). SIGHUP also reopens
// the log files, as tor's does, so logrotate can move them away.
// Anything else is refused (553) or left for the next start.
#include <algorithm>
#include <array>
#include <string_view>

#include "relay_config.hpp"
#include "relay_dos.hpp"
#include "relay_process.hpp"

namespace conflux::relay {

std::string circuit_priority_text(double halflife) {
  return halflife > 0 ? "EWMA, half-life " + std::to_string(halflife) + " s" : std::string("round robin");
}

// The options a running relay applies (SIGHUP, SETCONF): apply_runtime_options,
// and the DoS* options (kDosOptionNames).
constexpr std::array<std::string_view, 6> kRuntimeOptions{"CircuitPriorityHalflife", "SchedulerTraceFile",
                                                          "MaxMemInQueues", "BandwidthRate", "BandwidthBurst", "Log"};

bool is_runtime_option(std::string_view name) {
  return std::find(kRuntimeOptions.begin(), kRuntimeOptions.end(), name) != kRuntimeOptions.end() ||
         std::find(kDosOptionNames.begin(), kDosOptionNames.end(), name) != kDosOptionNames.end();
}

void RelayProcess::reload() {
  log::write(log::Severity::Notice, "Received reload signal (hup). Reloading config.");
  auto fresh = reload_startup_config(config_.command_line);
  if (!fresh) {
    log::write(log::Severity::Warn, "Reloading config failed (errors above); keeping the running configuration.");
    // logrotate's SIGHUP must still move the files, whatever the torrc says.
    open_logs("Log files reopened.");
    return;
  }
  const bool same_logs = fresh->options.logs == config_.options.logs;
  (void)apply_runtime_options(fresh->options);
  // logrotate moves the files away, then sends SIGHUP (its postrotate):
  // open them again by name, as tor's SIGHUP does, even when the Log lines
  // did not change (a change has just opened them).
  if (same_logs) open_logs("Log files reopened.");
  apply_exit_changes(*fresh);
  log::write(log::Severity::Notice, "Config reloaded: CircuitPriorityHalflife, SchedulerTraceFile, MaxMemInQueues, "
                                    "the DoS* options, BandwidthRate, BandwidthBurst, Log, ExitPolicy and "
                                    "ServerDNS* apply now; other changes take effect at the next start.");
}

namespace {
bool is_server_dns_option(std::string_view name) {
  return name == "ServerDNSResolvConfFile" || name == "ServerDNSAllowNonRFC953Hostnames";
}
}  // namespace

control::ConfigOutcome RelayProcess::reconfigure(config::RelayOptions next, const std::vector<std::string>& changed) {
  bool policy_changed = false;
  bool dns_changed = false;
  for (const auto& name : changed) {
    if (name == "ExitPolicy") {
      policy_changed = true;
    } else if (is_server_dns_option(name)) {
      dns_changed = true;
    } else if (!is_runtime_option(name)) {
      return {553, "Transition not allowed: While Tor is running, changing " + name + " is not allowed."};
    }
  }
  std::optional<proto::ExitPolicy> policy;
  if (policy_changed) {
    std::string why = "invalid ExitPolicy";
    policy = build_policy(next, [&why](const std::vector<config::ConfigError>& errors) {
      if (!errors.empty()) why = errors.front().message;
    });
    if (!policy) return {513, "Unacceptable option value: " + why};
  }
  // The file is read now, as SIGHUP reads it: one that cannot be read or
  // names no nameserver refuses the whole SETCONF.
  std::optional<std::vector<config::AddrPort>> nameservers;
  if (dns_changed) {
    std::string why = "ServerDNSResolvConfFile";
    nameservers = read_nameservers(
        next, [&why](const std::vector<config::ConfigError>& errors) {
          if (!errors.empty()) why = errors.front().message;
        },
        log_config_warnings);
    if (!nameservers) return {513, "Unacceptable option value: " + why};
  }
  if (!apply_runtime_options(next)) return {553, "Unable to set option: cannot open SchedulerTraceFile"};
  if (policy) apply_exit_policy(std::move(*policy), next.exit_policy);
  if (nameservers) apply_dns(std::move(*nameservers), next);
  config_.options.config_lines = std::move(next.config_lines);
  return {};
}

void RelayProcess::apply_defences(const config::RelayOptions& fresh) {
  auto& o = config_.options;
  if (fresh.max_mem_in_queues != o.max_mem_in_queues) {
    o.max_mem_in_queues = fresh.max_mem_in_queues;
    const auto bytes = relay_max_mem_in_queues(o, true);
    manager_.set_max_mem_in_queues(bytes);
    log::write(log::Severity::Notice, "MaxMemInQueues is now " + std::to_string(bytes >> 20) + " MB.");
  }
  // The DoS* fields (GETCONF shows them; the next consensus combines with them).
  o.dos = fresh.dos;
  const auto next = relay_dos_params(fresh, dos_consensus_params_);
  if (next == manager_.dos_guard().params()) return;
  manager_.set_dos_params(next);
  log::write(log::Severity::Notice, dos_summary(next) + ".");
}

void RelayProcess::apply_bandwidth_and_logs(const config::RelayOptions& fresh) {
  auto& o = config_.options;
  if (fresh.bandwidth_rate != o.bandwidth_rate || fresh.bandwidth_burst != o.bandwidth_burst) {
    if (manager_.set_bandwidth(fresh.bandwidth_rate, fresh.bandwidth_burst)) {
      o.bandwidth_rate = fresh.bandwidth_rate;
      o.bandwidth_burst = fresh.bandwidth_burst;
      log::write(log::Severity::Notice, "Bandwidth is now " + std::to_string(o.bandwidth_rate) + " bytes/s, burst " +
                                            std::to_string(o.bandwidth_burst) + " bytes.");
      republish_descriptor();
    }
  }
  if (fresh.logs != o.logs) {
    o.logs = fresh.logs;
    open_logs("Log destinations changed.");
  }
}

void RelayProcess::open_logs(const std::string& done) {
  try {
    log::configure(log_destinations(config_.options));
  } catch (const std::exception& e) {
    // configure() replaces nothing when a file cannot be opened.
    log::write(log::Severity::Warn, std::string(e.what()) + "; logging where we did before.");
    return;
  }
  log::write(log::Severity::Notice, done);
}

void RelayProcess::apply_exit_policy(proto::ExitPolicy policy, std::vector<config::PolicyLine> lines) {
  config_.options.exit_policy = std::move(lines);
  if (policy == config_.exit_policy) return;
  config_.exit_policy = policy;
  exit_.set_policy(std::move(policy));
  log::write(log::Severity::Notice, "Exit policy changed; it applies to streams opened from now on.");
  republish_descriptor();
}

// Clients learn a new policy or bandwidth from our next descriptor: publish
// one now, as tor does when its descriptor changes.
void RelayProcess::republish_descriptor() {
  if (!publisher_) return;
  if (auto info = relay_info()) publisher_->update(std::move(*info));
}

void RelayProcess::apply_exit_changes(const StartupConfig& fresh) {
  apply_exit_policy(fresh.exit_policy, fresh.options.exit_policy);
  apply_dns(fresh.nameservers, fresh.options);
}

namespace {

// tor logs at info which resolver file it read (dns.c); the addresses only
// at debug, as they can identify the operator's resolver.
void log_nameservers(const std::vector<config::AddrPort>& was, const std::vector<config::AddrPort>& now,
                     const std::string& file) {
  if (now == was) {
    log::write(log::Severity::Info, "No change to the nameservers in '" + file + "'.");
    return;
  }
  log::write(log::Severity::Info, "Nameservers in '" + file + "' changed: " + std::to_string(now.size()) +
                                      " now, " + std::to_string(was.size()) + " before.");
  std::string list;
  for (const auto& ns : now) list += (list.empty() ? "" : ", ") + ns.to_string();
  log::write(log::Severity::Debug, "Nameservers now: " + list + ".");
}

}  // namespace

void RelayProcess::apply_dns(std::vector<config::AddrPort> nameservers, const config::RelayOptions& fresh) {
  const std::string& named = fresh.server_dns_resolv_conf_file;
  log_nameservers(config_.nameservers, nameservers, named.empty() ? std::string(config::kSystemResolvConf) : named);
  config_.options.server_dns_resolv_conf_file = named;
  if (nameservers == config_.nameservers && fresh.server_dns_allow_non_rfc953 == config_.options.server_dns_allow_non_rfc953)
    return;
  StartupConfig next = config_;
  next.nameservers = std::move(nameservers);
  next.options.server_dns_allow_non_rfc953 = fresh.server_dns_allow_non_rfc953;
  if (!exit_.set_dns(relay_dns_settings(next))) {
    log::write(log::Severity::Warn, "The resolver cannot start with the new configuration; keeping the old one.");
    return;
  }
  config_.nameservers = std::move(next.nameservers);
  config_.options.server_dns_allow_non_rfc953 = next.options.server_dns_allow_non_rfc953;
  log::write(log::Severity::Notice, "Resolver configuration changed.");
}

bool RelayProcess::apply_runtime_options(const config::RelayOptions& fresh) {
  apply_defences(fresh);
  apply_bandwidth_and_logs(fresh);
  const double was = config_.options.circuit_priority_halflife;
  const double now = fresh.circuit_priority_halflife;
  if (now != was) {
    manager_.set_circuit_priority(proto::CircuitPriority{now});
    config_.options.circuit_priority_halflife = now;
    log::write(log::Severity::Notice, "Circuit priority is now " + circuit_priority_text(now) + ".");
  }
  // A trace can start or stop on a running relay (an experiment that
  // must not restart it).
  const std::string& trace = fresh.scheduler_trace_file;
  bool ok = true;
  if (trace != manager_.scheduler().trace_file()) {
    if (manager_.scheduler().set_trace_file(trace)) {
      log::write(log::Severity::Notice, trace.empty() ? std::string("Scheduler trace stopped.")
                                                      : "Scheduler trace now written to " + trace + ".");
    } else {
      log::write(log::Severity::Warn, "Cannot open SchedulerTraceFile " + trace + "; no scheduler trace.");
      ok = false;
    }
    config_.options.scheduler_trace_file = trace;
  }
  return ok;
}

}  // namespace conflux::relay
