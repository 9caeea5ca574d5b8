// conflux-net status and down: both read DIR/network.json and trust a pid
// only while its start time still matches the record.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "conflux/dirnet/http_client.hpp"
#include "conflux/netspec/metrics_text.hpp"
#include "conflux/netspec/network_file.hpp"
#include "netns.hpp"
#include "processes.hpp"

namespace conflux::netapp {

namespace fs = std::filesystem;
namespace asio = net::asio;
using namespace std::chrono_literals;

namespace {

constexpr std::chrono::milliseconds kStopGrace{10000};

// nullopt (and a message) when DIR has no readable network.json.
std::optional<netspec::NetworkInfo> load(const fs::path& dir, bool quiet_if_missing = false) {
  const auto file = dir / netspec::kNetworkFileName;
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    if (!quiet_if_missing) std::fprintf(stderr, "conflux-net: no network in %s (no %s)\n", dir.c_str(), file.c_str());
    return std::nullopt;
  }
  auto info = netspec::decode_network(read_file(file));
  if (!info) {
    std::fprintf(stderr, "conflux-net: %s: %s\n", file.c_str(), info.error().c_str());
    return std::nullopt;
  }
  return std::move(*info);
}

std::string ports_text(const netspec::Ports& p) {
  std::string t;
  auto add = [&](const char* what, std::uint16_t port) {
    if (port != 0) t += std::string(t.empty() ? "" : " ") + what + " " + std::to_string(port);
  };
  add("or", p.or_port);
  add("dir", p.dir_port);
  add("socks", p.socks_port);
  add("metrics", p.metrics_port);
  add("http", p.http_port);
  add("pt", p.pt_port);
  add("control", p.control_port);
  return t;
}

// The proxy's conflux_proxy_bootstrap_percent, if its MetricsPort answers.
std::optional<double> bootstrap_percent(const std::string& address, std::uint16_t metrics_port) {
  boost::system::error_code ec;
  const auto ip = asio::ip::make_address_v4(address.empty() ? "127.0.0.1" : address, ec);
  if (metrics_port == 0 || ec) return std::nullopt;
  asio::io_context io;
  std::optional<double> out;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        auto r = co_await dirnet::http_get({ip, metrics_port}, "/metrics",
                                           {2000ms, 8192, 1 << 20});
        if (r && r->status == 200) out = netspec::find_metric(r->body, "conflux_proxy_bootstrap_percent");
      },
      asio::detached);
  io.run();
  return out;
}

}  // namespace

int run_status(const fs::path& dir, bool json) {
  auto info = load(dir);
  if (!info) return 2;
  bool all_alive = true;
  std::size_t started = 0, alive_count = 0;
  std::vector<bool> alive;
  for (const auto& p : info->processes) {
    const bool a = p.started && is_same_process(static_cast<pid_t>(p.pid), p.start_time);
    alive.push_back(a);
    started += p.started;
    alive_count += a;
    if (p.started && !a) all_alive = false;
  }
  std::optional<double> percent;
  std::uint16_t metrics_port = 0;
  std::string metrics_address;
  for (const auto& p : info->processes)
    if (info->proxy && p.name == info->proxy->name) metrics_port = p.ports.metrics_port, metrics_address = p.address;
  if (metrics_port != 0) percent = bootstrap_percent(metrics_address, metrics_port);
  const bool ok = info->state == "ready" && all_alive && started > 0;

  if (json) {
    nlohmann::ordered_json j;
    j["dir"] = info->dir;
    j["state"] = info->state;
    j["all_alive"] = all_alive && started > 0;
    j["proxy_bootstrap_percent"] = percent ? nlohmann::ordered_json(*percent) : nlohmann::ordered_json(nullptr);
    j["processes"] = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < info->processes.size(); ++i) {
      const auto& p = info->processes[i];
      j["processes"].push_back({{"name", p.name},
                                {"role", std::string(netspec::to_string(p.role))},
                                {"implementation", p.implementation.empty() ? "conflux" : p.implementation},
                                {"pid", p.pid},
                                {"state", !p.started ? "not started" : alive[i] ? "running" : "gone"}});
    }
    std::printf("%s\n", j.dump(2).c_str());
    return ok ? 0 : 1;
  }

  std::printf("conflux-net network in %s: %s, %zu of %zu started processes running\n", info->dir.c_str(),
              info->state.c_str(), alive_count, started);
  // An emulated network's processes each have their own address (loopback's all share 127.0.0.1).
  const bool emulated = !info->namespaces.empty();
  std::printf("  %-16s %-10s %-8s %-12s %s\n", "NAME", "ROLE", "PID", "STATE",
              emulated ? "ADDRESS AND PORTS" : "PORTS (127.0.0.1)");
  for (std::size_t i = 0; i < info->processes.size(); ++i) {
    const auto& p = info->processes[i];
    const std::string pid = p.started ? std::to_string(p.pid) : "-";
    const std::string where = emulated && !p.address.empty() ? p.address + " " + ports_text(p.ports) : ports_text(p.ports);
    // A relay run by stock tor says so in its role: "relay/tor".
    const std::string role =
        std::string(netspec::to_string(p.role)) + (p.implementation.empty() ? "" : "/" + p.implementation);
    std::printf("  %-16s %-10s %-8s %-12s %s\n", p.name.c_str(), role.c_str(),
                pid.c_str(), !p.started ? "not started" : alive[i] ? "running" : "GONE", where.c_str());
  }
  if (info->proxy) {
    std::printf("proxy %s: SOCKS %s, ", info->proxy->name.c_str(), info->proxy->socks.c_str());
    if (percent) {
      std::printf("bootstrapped %.0f%% (%s)\n", *percent, info->proxy->metrics.c_str());
    } else {
      std::printf("metrics not reachable at %s\n", info->proxy->metrics.c_str());
    }
  }
  for (std::size_t i = 0; i < info->processes.size(); ++i)
    if (info->processes[i].started && !alive[i])
      std::printf("  %s is gone; its log: %s\n", info->processes[i].name.c_str(),
                  (info->processes[i].log.empty() ? info->processes[i].output : info->processes[i].log).c_str());
  return ok ? 0 : 1;
}

int run_down(const fs::path& dir) {
  auto info = load(dir, true);
  if (!info) {
    std::printf("conflux-net: nothing to stop in %s\n", dir.c_str());
    std::error_code ec;
    return fs::exists(dir / netspec::kNetworkFileName, ec) ? 1 : 0;
  }
  // The reverse of the start order: proxies first, the authority and the
  // file server last.
  std::vector<StopTarget> targets;
  for (auto it = info->processes.rbegin(); it != info->processes.rend(); ++it)
    if (it->started) targets.push_back({it->name, static_cast<pid_t>(it->pid), it->start_time});
  const auto report = stop_processes(targets, kStopGrace);
  // With the router gone the devices are; the namespaces outlive every process until deleted.
  remove_namespaces(info->namespaces);
  info->state = "stopped";
  if (!write_file_atomically(dir / netspec::kNetworkFileName, netspec::encode_network(*info)))
    std::fprintf(stderr, "conflux-net: could not mark %s stopped\n", (dir / netspec::kNetworkFileName).c_str());
  std::printf("conflux-net: stopped %zu process%s in %s", report.signalled, report.signalled == 1 ? "" : "es",
              info->dir.c_str());
  if (report.killed > 0) std::printf(" (%zu needed SIGKILL)", report.killed);
  if (report.gone > 0) std::printf(" (%zu had already ended)", report.gone);
  std::printf("\n");
  return 0;
}

}  // namespace conflux::netapp
