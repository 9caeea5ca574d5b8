// conflux-net router: an emulated network's links (docs/CONFLUX-NET.md,
// "Emulated networks"). One TUN device per host of DIR/emulation.json, created
// here in the initial namespace; `up` then moves each into its host's namespace
// and gives it the host's address (the machine's stays here). Every packet read
// from a device goes to the sans-I/O netspec::Router, and is written to the
// device of the host it is for when the router says it is due.
#include <sys/resource.h>
#include <unistd.h>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "conflux/net/asio.hpp"
#include "conflux/netspec/emulation.hpp"
#include "conflux/netspec/router.hpp"
#include "processes.hpp"
#include "tun_device.hpp"

namespace conflux::netapp {

namespace asio = net::asio;

namespace {

constexpr std::size_t kReadBuffer = 65536;  // every MTU (no IFF_VNET_HDR, so no GSO super-packets)
constexpr int kReadBurst = 64;              // packets from one device before the others get a turn
constexpr int kRouterNice = -10;

netspec::EmuTime now() { return std::chrono::steady_clock::now().time_since_epoch(); }

class Network {
 public:
  Network(asio::io_context& io, const netspec::RouterConfig& config)
      : io_(io), router_(hosts_of(config), config.seed), timer_(io), buffer_(kReadBuffer) {}

  // False (with why) when a device cannot be made.
  bool open(const netspec::RouterConfig& config, std::string& error) {
    for (const auto& h : config.hosts) {
      devices_.push_back(std::make_unique<TunDevice>(h.device));
      if (devices_.back()->fd() < 0) {
        error = devices_.back()->error();
        return false;
      }
      readers_.push_back(std::make_unique<asio::posix::stream_descriptor>(io_, ::dup(devices_.back()->fd())));
    }
    return true;
  }

  void start() {
    for (std::size_t i = 0; i < readers_.size(); ++i) wait_readable(i);
  }

  [[nodiscard]] const netspec::Router& router() const { return router_; }
  [[nodiscard]] std::uint64_t write_errors() const { return write_errors_; }
  [[nodiscard]] const std::string& failure() const { return failure_; }

 private:
  static std::vector<netspec::RouterHost> hosts_of(const netspec::RouterConfig& config) {
    std::vector<netspec::RouterHost> hosts;
    for (const auto& h : config.hosts) hosts.push_back({h.address, h.link});
    return hosts;
  }

  void wait_readable(std::size_t host) {
    readers_[host]->async_wait(asio::posix::stream_descriptor::wait_read,
                               [this, host](const boost::system::error_code& ec) {
                                 if (ec) {
                                   failure_ = ec.message();
                                 } else if (read_burst(host)) {
                                   wait_readable(host);
                                   return;
                                 }
                                 io_.stop();
                               });
  }

  // False when the device failed for good (deleted): the network has lost a host.
  bool read_burst(std::size_t host) {
    const int fd = readers_[host]->native_handle();
    for (int i = 0; i < kReadBurst; ++i) {
      const ssize_t n = ::read(fd, buffer_.data(), buffer_.size());
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) break;
      if (n <= 0) {
        failure_ = n < 0 ? std::strerror(errno) : "end of file";
        return false;
      }
      router_.push(host, now(), std::vector<std::uint8_t>(buffer_.begin(), buffer_.begin() + n));
    }
    arm();
    return true;
  }

  // The timer waits for the router's next release; it is moved only when a
  // new packet makes that earlier (most pushes do not).
  void arm() {
    const auto next = router_.next_release();
    if (!next || (armed_ && *armed_ <= *next)) return;
    armed_ = next;
    timer_.expires_at(std::chrono::steady_clock::time_point(
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(*next)));
    timer_.async_wait([this](const boost::system::error_code& ec) {
      if (ec) return;  // moved earlier: the new wait runs
      armed_.reset();
      release_due();
    });
  }

  void release_due() {
    while (auto d = router_.pop_due(now())) {
      // A failed write (the device went down) loses the packet, as a link would.
      const int fd = devices_[d->host]->fd();
      if (::write(fd, d->packet.data(), d->packet.size()) != static_cast<ssize_t>(d->packet.size())) ++write_errors_;
    }
    arm();
  }

  asio::io_context& io_;
  netspec::Router router_;
  asio::steady_timer timer_;
  std::optional<netspec::EmuTime> armed_;
  std::vector<std::unique_ptr<TunDevice>> devices_;
  std::vector<std::unique_ptr<asio::posix::stream_descriptor>> readers_;
  std::vector<std::uint8_t> buffer_;
  std::uint64_t write_errors_ = 0;
  std::string failure_;
};

void print_counters(const netspec::RouterConfig& config, const Network& n) {
  const auto& r = n.router();
  for (std::size_t i = 0; i < config.hosts.size(); ++i) {
    const auto& up = r.uplink(i);
    const auto& down = r.downlink(i);
    std::printf("{\"host\": \"%s\", \"sent\": %llu, \"up_lost\": %llu, \"up_overflow\": %llu, \"received\": %llu, "
                "\"received_bytes\": %llu, \"down_lost\": %llu, \"down_overflow\": %llu}\n",
                config.hosts[i].name.c_str(), static_cast<unsigned long long>(up.received),
                static_cast<unsigned long long>(up.lost), static_cast<unsigned long long>(up.overflow),
                static_cast<unsigned long long>(down.delivered), static_cast<unsigned long long>(down.delivered_bytes),
                static_cast<unsigned long long>(down.lost), static_cast<unsigned long long>(down.overflow));
  }
  std::printf("{\"undecodable\": %llu, \"no_route\": %llu, \"write_errors\": %llu}\n",
              static_cast<unsigned long long>(r.counters().undecodable),
              static_cast<unsigned long long>(r.counters().no_route),
              static_cast<unsigned long long>(n.write_errors()));
}

}  // namespace

int run_router(const std::filesystem::path& config_file) {
  auto config = netspec::decode_router_config(read_file(config_file, 1 << 20));
  if (!config) {
    std::fprintf(stderr, "conflux-net router: %s: %s\n", config_file.c_str(), config.error().c_str());
    return 1;
  }
  // The router is the network's wire: when it waits for a CPU behind the
  // processes it carries, every link's latency grows and device queues
  // overflow, which measures the machine rather than the protocol. Root
  // (which an emulated network needs anyway) may raise its priority.
  if (::setpriority(PRIO_PROCESS, 0, kRouterNice) != 0)
    std::fprintf(stderr, "conflux-net router: running at the default priority (setpriority: %s)\n", std::strerror(errno));
  asio::io_context io(1);
  Network network(io, *config);
  std::string error;
  if (!network.open(*config, error)) {
    std::fprintf(stderr, "conflux-net router: %s\n", error.c_str());
    return 1;
  }
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code&, int) { io.stop(); });
  network.start();
  // `up` moves the devices into their namespaces and configures them once it reads this line.
  std::printf("ready %zu devices\n", config->hosts.size());
  std::fflush(stdout);
  io.run();
  print_counters(*config, network);
  std::fflush(stdout);
  if (!network.failure().empty()) {
    std::fprintf(stderr, "conflux-net router: reading a device: %s\n", network.failure().c_str());
    return 1;
  }
  return 0;
}

}  // namespace conflux::netapp
