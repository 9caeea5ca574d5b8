#pragma once
// Support for the proxy's process tests: a whole network started with
// `conflux-net up` in a temporary directory (stopped with `down` whatever
// happens), curl through a SOCKS proxy with the body's SHA-256, metrics
// scrapes, extra conflux-proxy processes the test owns, and log waits.
// Everything listens on 127.0.0.1.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <optional>
#include <regex>
#include <string>
#include <vector>
#include <thread>

#include "conflux/bytes/hex.hpp"
#include "conflux/crypto/digest.hpp"
#include "test_net_processes_support.hpp"

namespace conflux::test::proxynet {

using procs::Child;
using procs::TempDir;
using procs::fs::path;
using namespace std::chrono_literals;

struct CommandResult {
  int status = -1;  // exit status, -1 if it did not exit normally
  std::string output;
};

// Runs `cmd` through the shell; stdout captured (stderr to the test's).
inline CommandResult run_command(const std::string& cmd) {
  CommandResult r;
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[65536];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int st = ::pclose(p);
  if (WIFEXITED(st)) r.status = WEXITSTATUS(st);
  return r;
}

inline std::string sha256_hex(const std::string& data) {
  auto d = crypto::sha256(bytes::ByteSpan(reinterpret_cast<const std::uint8_t*>(data.data()), data.size()));
  return bytes::to_hex(d);
}

struct Fetch {
  int curl_status = -1;  // curl's exit code (0 = ok; 97 = SOCKS connection failure...)
  std::string sha256;
  std::size_t size = 0;
};

// curl `url` through `socks` with `mode` ("--socks5-hostname", "--socks4a", ...).
inline Fetch curl_fetch(const std::string& mode, const std::string& socks, const std::string& url,
                        int max_seconds = 180) {
  auto r = run_command("curl -s --max-time " + std::to_string(max_seconds) + " " + mode + " " + socks + " '" + url +
                       "'");
  return Fetch{r.status, sha256_hex(r.output), r.output.size()};
}

// One sample's value from a Prometheus text page, by its full name with labels.
inline std::optional<double> metric(const std::string& page, const std::string& sample) {
  std::istringstream in(page);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(sample + " ", 0) == 0) return std::stod(line.substr(sample.size() + 1));
  }
  return std::nullopt;
}

// The relays of a logged path, "a -> b -> c".
inline std::vector<std::string> split_path(const std::string& text) {
  std::vector<std::string> hops;
  std::size_t at = 0;
  for (;;) {
    const auto arrow = text.find(" -> ", at);
    hops.push_back(text.substr(at, arrow - at));
    if (arrow == std::string::npos) break;
    at = arrow + 4;
  }
  return hops;
}

inline std::string scrape(const std::string& metrics_url) {
  return run_command("curl -s --max-time 10 '" + metrics_url + "'").output;
}

// Waits until `file` matches `pattern` (polling; bounded).
inline std::optional<std::smatch> wait_for_log(const path& file, const std::string& pattern,
                                               std::chrono::milliseconds limit) {
  const std::regex re(pattern);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  static thread_local std::string text;
  for (;;) {
    text = procs::read_text(file);
    std::smatch m;
    if (std::regex_search(text, m, re)) return m;
    if (std::chrono::steady_clock::now() > deadline) return std::nullopt;
    std::this_thread::sleep_for(100ms);
  }
}

// A network from `conflux-net up`, brought down by the destructor.
class Network {
 public:
  // The default network, or the one `spec` (conflux-net's spec JSON) describes.
  explicit Network(const std::string& spec = "") {
    std::string cmd = std::string(CONFLUX_NET_BINARY) + " up --dir " + (dir_.path() / "net").string();
    if (!spec.empty()) {
      procs::write_text(dir_.path() / "spec.json", spec);
      cmd += " --spec " + (dir_.path() / "spec.json").string();
    }
    const auto r = run_command(cmd + " 2>&1");
    INFO(r.output);
    REQUIRE(r.status == 0);
    json_ = nlohmann::json::parse(procs::read_text(dir() / "network.json"));
  }
  ~Network() {
    (void)run_command(std::string(CONFLUX_NET_BINARY) + " down --dir " + dir().string() + " >/dev/null 2>&1");
  }
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  [[nodiscard]] path dir() const { return dir_.path() / "net"; }
  [[nodiscard]] const nlohmann::json& json() const { return json_; }
  [[nodiscard]] std::string socks() const { return json_["proxy"]["socks"].get<std::string>(); }
  [[nodiscard]] std::string metrics_url() const { return json_["proxy"]["metrics"].get<std::string>(); }
  [[nodiscard]] std::string file_url(const std::string& name) const { return file(name)["url"].get<std::string>(); }
  [[nodiscard]] std::string file_sha(const std::string& name) const { return file(name)["sha256"].get<std::string>(); }
  [[nodiscard]] std::vector<std::string> file_names() const {
    std::vector<std::string> out;
    for (const auto& f : json_["files"]) out.push_back(f["name"].get<std::string>());
    return out;
  }
  [[nodiscard]] const nlohmann::json& process(const std::string& name) const {
    for (const auto& p : json_["processes"])
      if (p["name"] == name) return p;
    FAIL("no process " << name);
    return json_;
  }
  [[nodiscard]] std::vector<std::string> names_with_role(const std::string& role) const {
    std::vector<std::string> out;
    for (const auto& p : json_["processes"])
      if (p["role"] == role) out.push_back(p["name"].get<std::string>());
    return out;
  }
  // The DirAuthority lines of the network's proxy torrc.
  [[nodiscard]] std::string dir_authority_lines() const {
    const auto torrc = procs::read_text(process("proxy")["torrc"].get<std::string>());
    std::string out;
    std::istringstream in(torrc);
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("DirAuthority", 0) == 0) out += line + "\n";
    return out;
  }
  // "Bridge 127.0.0.1:OR FINGERPRINT" for one of the network's bridges
  // (tor's form: its RSA fingerprint).
  [[nodiscard]] std::string bridge_line(const std::string& name) const {
    const auto& p = process(name);
    return "Bridge 127.0.0.1:" + std::to_string(p["ports"]["or"].get<int>()) + " " +
           p["rsa_fingerprint"].get<std::string>();
  }

 private:
  [[nodiscard]] const nlohmann::json& file(const std::string& name) const {
    for (const auto& f : json_["files"])
      if (f["name"] == name) return f;
    FAIL("no file " << name);
    return json_;
  }
  TempDir dir_;
  nlohmann::json json_;
};

// A conflux-proxy of the test's own, on the network's directory, with an
// info log the test can read (circuit paths, stream attachments).
class TestProxy {
 public:
  TestProxy(const Network& net, const std::string& name, const std::string& extra_torrc)
      : TestProxy(net.dir(), net.dir_authority_lines(), name, extra_torrc) {}
  // On any directory: `authority_lines` are its DirAuthority lines (ours or
  // tor's form); the proxy lives in base/test-NAME.
  TestProxy(const path& base, const std::string& authority_lines, const std::string& name,
            const std::string& extra_torrc) {
    procs::asio::io_context io;
    auto ports = procs::free_ports(io, 2);
    socks_ = "127.0.0.1:" + std::to_string(ports[0]);
    const std::string metrics_at = "127.0.0.1:" + std::to_string(ports[1]);
    metrics_url_ = "http://" + metrics_at + "/metrics";
    const path dir = base / ("test-" + name);
    procs::fs::create_directories(dir);
    log_ = dir / "info.log";
    const std::string torrc = "DataDirectory " + (dir / "data").string() + "\nLog info file " + log_.string() +
                              "\nSocksPort " + socks_ + "\nMetricsPort " + metrics_at +
                              "\nEnforceDistinctSubnets 0\nTestingTorNetwork 1\n" + authority_lines + extra_torrc;
    procs::write_text(dir / "torrc", torrc);
    child_ = std::make_unique<Child>(name, CONFLUX_PROXY_BINARY, std::vector<std::string>{"-f", (dir / "torrc").string()},
                                     dir / "output.log");
    child_->start();
  }
  [[nodiscard]] bool bootstrapped(std::chrono::milliseconds limit = 30s) const {
    return wait_for_log(log_, "Bootstrapped 100%", limit).has_value();
  }
  [[nodiscard]] const std::string& socks() const { return socks_; }
  [[nodiscard]] const std::string& metrics_url() const { return metrics_url_; }
  [[nodiscard]] const path& log() const { return log_; }
  [[nodiscard]] Child& child() { return *child_; }

 private:
  std::string socks_, metrics_url_;
  path log_;
  std::unique_ptr<Child> child_;
};

}  // namespace conflux::test::proxynet
