#pragma once
// A stock tor 0.4.9 bridge on 127.0.0.1 (BridgeRelay 1, PublishServerDescriptor
// 0), attached to a StockTorNetwork through its DirAuthority lines so it can
// extend circuits into that network; optionally with an obfs4 transport
// (Debian's obfs4proxy). Its Bridge line is read from what tor itself writes:
// DataDirectory/fingerprint, and for obfs4 pt_state/obfs4_bridgeline.txt
// (the cert= of obfs4proxy's state). Stopped when the object goes.
#include <memory>
#include <regex>
#include <string>

#include "proxy_network_support.hpp"
#include "stock_tor_network.hpp"

namespace conflux::test::stocktor {

class StockBridge {
 public:
  // `obfs4`: also serve obfs4 on a port of its own, and hand out that line.
  StockBridge(const StockTorNetwork& net, const std::string& nick, bool obfs4) : obfs4_(obfs4) {
    asio::io_context io;
    auto ports = procs::free_ports(io, 2);
    or_port_ = ports[0];
    obfs4_port_ = ports[1];
    dir_ = net.work() / ("stock-" + nick);
    fs::create_directories(dir_);
    log_ = dir_ / "notice.log";
    std::string torrc = "TestingTorNetwork 1\nDataDirectory " + (dir_ / "data").string() + "\nNickname " + nick +
                        "\nRunAsDaemon 0\nSandbox 0\nShutdownWaitLength 0\nLog notice file " + log_.string() +
                        "\nSafeLogging 0\nOutboundBindAddress 127.0.0.1\nSocksPort 0\nORPort 127.0.0.1:" +
                        std::to_string(or_port_) +
                        "\nAddress 127.0.0.1\nAssumeReachable 1\nBridgeRelay 1\nPublishServerDescriptor 0"
                        "\nExitRelay 0\nExitPolicy reject *:*\nContactInfo " + nick + "@tornet.invalid\n" +
                        net.dir_authority_lines();
    if (obfs4)
      torrc += "ServerTransportPlugin obfs4 exec /usr/bin/obfs4proxy\nServerTransportListenAddr obfs4 127.0.0.1:" +
               std::to_string(obfs4_port_) + "\n";
    procs::write_text(dir_ / "torrc", torrc);
    child_ = std::make_unique<Child>(nick, "/usr/sbin/tor", std::vector<std::string>{"-f", (dir_ / "torrc").string()},
                                     dir_ / "output.log", SIGTERM);
    child_->start();
  }

  // Waits until tor says it is up, then reads its fingerprint (and, for
  // obfs4, the line obfs4proxy wrote at its start); false if it did not
  // come up in time.
  [[nodiscard]] bool ready(std::chrono::seconds limit = std::chrono::seconds(120)) {
    using proxynet::wait_for_log;
    if (!wait_for_log(log_, "Bootstrapped 100%", limit)) return false;
    const auto fp_file = dir_ / "data" / "fingerprint";
    const auto text = procs::read_text(fp_file);
    std::smatch m;
    if (!std::regex_search(text, m, std::regex(" ([0-9A-F]{40})"))) return false;
    fingerprint_ = m[1];
    if (obfs4_ && fs::exists(dir_ / "data" / "pt_state" / "obfs4_bridgeline.txt")) {
      // "Bridge obfs4 <IP ADDRESS>:<PORT> <FINGERPRINT> cert=... iat-mode=0"
      const auto line = procs::read_text(dir_ / "data" / "pt_state" / "obfs4_bridgeline.txt");
      if (std::regex_search(line, m, std::regex("(cert=[^ \\n]+ iat-mode=[0-9])"))) obfs4_args_ = m[1];
    }
    return true;
  }

  [[nodiscard]] std::string bridge_line() const {
    return "Bridge 127.0.0.1:" + std::to_string(or_port_) + " " + fingerprint_ + "\n";
  }
  // Empty if tor wrote no obfs4 line.
  [[nodiscard]] std::string obfs4_bridge_line() const {
    if (obfs4_args_.empty()) return {};
    return "Bridge obfs4 127.0.0.1:" + std::to_string(obfs4_port_) + " " + fingerprint_ + " " + obfs4_args_ + "\n";
  }
  // SIGTERM, and waits for tor to exit (ShutdownWaitLength 0).
  [[nodiscard]] bool stop() {
    child_->signal(SIGTERM);
    return child_->wait_exit(std::chrono::seconds(20)).has_value();
  }
  [[nodiscard]] const fs::path& log() const { return log_; }
  [[nodiscard]] const std::string& fingerprint() const { return fingerprint_; }

 private:
  fs::path dir_;
  fs::path log_;
  std::uint16_t or_port_ = 0;
  std::uint16_t obfs4_port_ = 0;
  bool obfs4_ = false;
  std::string fingerprint_;
  std::string obfs4_args_;
  std::unique_ptr<Child> child_;
};

}  // namespace conflux::test::stocktor
