// SIGHUP on a conflux-relay process on 127.0.0.1: the torrc is read again
// and CircuitPriorityHalflife applies at once (EWMA to round robin); a torrc
// that no longer parses is reported with its file and line, and the relay
// keeps running on the configuration it had; SchedulerTraceFile starts and
// stops a trace.
#include <csignal>

#include "test_net_processes_support.hpp"

#ifndef CONFLUX_RELAY_BINARY
#error "CONFLUX_RELAY_BINARY must name the conflux-relay program (tests/CMakeLists.txt)"
#endif

using namespace conflux;
using namespace conflux::test::procs;

TEST_CASE("relay process: SIGHUP reloads the torrc, CircuitPriorityHalflife applies, a broken torrc is refused",
          "[processes]") {
  TempDir tmp;
  asio::io_context io;
  const auto torrc = tmp.path() / "relay.torrc";
  const auto log_path = tmp.path() / "relay.log";
  const auto port = free_ports(io, 1)[0];
  const std::string base = "Nickname reload\nDataDirectory " + (tmp.path() / "data").string() +
                           "\nORPort 127.0.0.1:" + std::to_string(port) + "\nLog notice file " + log_path.string() +
                           "\nTestingTorNetwork 1\n";
  write_text(torrc, base);
  Child proc("relay", CONFLUX_RELAY_BINARY, {"-f", torrc.string()}, tmp.path() / "relay.out");
  proc.start();
  auto logged = [&](const std::string& text) { return read_text(log_path).find(text) != std::string::npos; };
  INFO(read_text(log_path) << proc.output_text());
  REQUIRE(run_until(io, [&] { return logged(" is up as ") || !proc.running(); }, 30s));
  REQUIRE(proc.running());
  // The line after " is up as ": the file may be read between the two.
  CHECK(run_until(io, [&] { return logged("circuit priority: EWMA, half-life 30"); }, 10s));

  write_text(torrc, base + "CircuitPriorityHalflife 0\n");
  proc.signal(SIGHUP);
  CHECK(run_until(io, [&] { return logged("Circuit priority is now round robin."); }, 10s));

  write_text(torrc, base + "CircuitPriorityHalflife 0\nCircuitPriorityHalflife fast\n");
  proc.signal(SIGHUP);
  CHECK(run_until(io, [&] { return logged("keeping the running configuration"); }, 10s));
  CHECK(logged(torrc.string() + ":7: "));
  run_until(io, [] { return false; }, 300ms);
  CHECK(proc.running());

  write_text(torrc, base + "CircuitPriorityHalflife 20\n");
  proc.signal(SIGHUP);
  CHECK(run_until(io, [&] { return logged("Circuit priority is now EWMA, half-life 20"); }, 10s));
  CHECK(proc.running());

  // A scheduler trace starts on the running relay, then stops.
  const auto trace = tmp.path() / "sched.trace";
  write_text(torrc, base + "CircuitPriorityHalflife 20\nSchedulerTraceFile " + trace.string() + "\n");
  proc.signal(SIGHUP);
  CHECK(run_until(io, [&] { return logged("Scheduler trace now written to " + trace.string()); }, 10s));
  CHECK(read_text(trace).rfind("# scheduler ", 0) == 0);
  write_text(torrc, base + "CircuitPriorityHalflife 20\n");
  proc.signal(SIGHUP);
  CHECK(run_until(io, [&] { return logged("Scheduler trace stopped."); }, 10s));
  CHECK(proc.running());
}

TEST_CASE("relay process: SIGHUP applies MaxMemInQueues and the DoS options", "[processes][dos]") {
  TempDir tmp;
  asio::io_context io;
  const auto torrc = tmp.path() / "relay.torrc";
  const auto log_path = tmp.path() / "relay.log";
  const auto port = free_ports(io, 1)[0];
  const std::string base = "Nickname reload\nDataDirectory " + (tmp.path() / "data").string() +
                           "\nORPort 127.0.0.1:" + std::to_string(port) + "\nLog notice file " + log_path.string() +
                           "\nTestingTorNetwork 1\n";
  write_text(torrc, base + "MaxMemInQueues 300 MB\n");
  Child proc("relay", CONFLUX_RELAY_BINARY, {"-f", torrc.string()}, tmp.path() / "relay.out");
  proc.start();
  auto logged = [&](const std::string& text) { return read_text(log_path).find(text) != std::string::npos; };
  INFO(read_text(log_path) << proc.output_text());
  REQUIRE(run_until(io, [&] { return logged(" is up as ") || !proc.running(); }, 30s));
  REQUIRE(proc.running());
  // tor's defaults: every defence off without a consensus that turns it on.
  CHECK(run_until(io, [&] { return logged("DoS defences: circuit creation off; connections off; stream creation off."); }, 10s));

  write_text(torrc, base + "MaxMemInQueues 400 MB\nDoSCircuitCreationEnabled 1\nDoSCircuitCreationRate 5\n"
                           "DoSStreamCreationEnabled 1\nDoSStreamCreationBurst 20\n");
  proc.signal(SIGHUP);
  CHECK(run_until(io, [&] { return logged("MaxMemInQueues is now 400 MB."); }, 10s));
  CHECK(run_until(io, [&] {
    return logged("DoS defences: circuit creation on (5/s, burst 90, from 3 connections); connections off; "
                  "stream creation on (100/s per circuit, burst 20).");
  }, 10s));
  // The reload's last line, a moment after (the log files are reopened in between).
  CHECK(run_until(io, [&] {
    return logged("Config reloaded: CircuitPriorityHalflife, SchedulerTraceFile, MaxMemInQueues, the DoS* options, "
                  "BandwidthRate, BandwidthBurst, Log, ExitPolicy and ServerDNS* apply now");
  }, 10s));
  CHECK(proc.running());
}

// logrotate's way (packaging/logrotate/conflux-relay): the file is renamed,
// then SIGHUP; the relay must open a new file of the same name and write
// there, with its Log line unchanged. A torrc broken meanwhile does not
// stop the reopening.
TEST_CASE("relay process: SIGHUP reopens an unchanged log file after logrotate renamed it", "[processes]") {
  TempDir tmp;
  asio::io_context io;
  const auto torrc = tmp.path() / "relay.torrc";
  const auto log_path = tmp.path() / "relay.log";
  const auto rotated = tmp.path() / "relay.log.1";
  const auto port = free_ports(io, 1)[0];
  const std::string base = "Nickname rotate\nDataDirectory " + (tmp.path() / "data").string() +
                           "\nORPort 127.0.0.1:" + std::to_string(port) + "\nLog notice file " + log_path.string() +
                           "\nTestingTorNetwork 1\n";
  write_text(torrc, base);
  Child proc("relay", CONFLUX_RELAY_BINARY, {"-f", torrc.string()}, tmp.path() / "relay.out");
  proc.start();
  auto logged = [&](const fs::path& p, const std::string& text) { return read_text(p).find(text) != std::string::npos; };
  INFO(read_text(log_path) << read_text(rotated) << proc.output_text());
  REQUIRE(run_until(io, [&] { return logged(log_path, " is up as ") || !proc.running(); }, 30s));

  fs::rename(log_path, rotated);
  proc.signal(SIGHUP);
  REQUIRE(run_until(io, [&] { return logged(log_path, "Log files reopened."); }, 10s));
  CHECK(logged(rotated, "Received reload signal (hup)."));
  CHECK_FALSE(logged(rotated, "Log files reopened."));
  // Later lines go to the new file too.
  CHECK(run_until(io, [&] { return logged(log_path, "Config reloaded: "); }, 10s));
  proc.signal(SIGUSR1);
  CHECK(run_until(io, [&] { return logged(log_path, "Heartbeat: "); }, 10s));
  CHECK_FALSE(logged(rotated, "Heartbeat: "));

  // A second rotation while the torrc has an error: the configuration stays,
  // the file is reopened all the same.
  const auto rotated2 = tmp.path() / "relay.log.2";
  fs::rename(log_path, rotated2);
  write_text(torrc, base + "CircuitPriorityHalflife fast\n");
  proc.signal(SIGHUP);
  REQUIRE(run_until(io, [&] { return logged(log_path, "Log files reopened."); }, 10s));
  CHECK(logged(rotated2, "keeping the running configuration"));
  CHECK(proc.running());
}
