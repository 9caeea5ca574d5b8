// conflux-net delay-line: an emulated link between two TUN devices. Each
// packet read from one device is handed to that direction's DelayLine (the
// sans-I/O core: latency, jitter, loss, queue bound) and written to the other
// device when the core says it is due. Rates are not this program's job: the
// kernel's tbf or htb on each device's egress shape them (docs/CONFLUX-NET.md,
// "Link emulation"), so the kernel's TCP sees a real bottleneck queue.
#include <unistd.h>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <memory>
#include <vector>

#include "commands.hpp"
#include "conflux/net/asio.hpp"
#include "conflux/netspec/delay_line.hpp"
#include "tun_device.hpp"

namespace conflux::netapp {

namespace asio = net::asio;

namespace {

// One read may return a whole GSO super-packet only with IFF_VNET_HDR, which is
// not asked for, so a packet is at most the device's MTU; 64 KiB is every MTU.
constexpr std::size_t kReadBuffer = 65536;
// Packets taken from a device before the loop lets the other direction run.
constexpr int kReadBurst = 64;

netspec::EmuTime now() { return std::chrono::steady_clock::now().time_since_epoch(); }

// One direction: reads `from`, delays, writes `to`. The owner keeps both
// devices alive for as long as the direction runs.
class Direction {
 public:
  Direction(asio::io_context& io, int from, int to, const netspec::LinkParams& link, std::uint64_t seed)
      : io_(io), from_(io, ::dup(from)), to_(to), line_(link, seed), timer_(io), buffer_(kReadBuffer) {}

  void start() { wait_readable(); }
  [[nodiscard]] const netspec::DelayLineCounters& counters() const { return line_.counters(); }
  [[nodiscard]] std::uint64_t write_errors() const { return write_errors_; }
  [[nodiscard]] const std::string& failure() const { return failure_; }

 private:
  void wait_readable() {
    from_.async_wait(asio::posix::stream_descriptor::wait_read, [this](const boost::system::error_code& ec) {
      if (ec) {
        failure_ = ec.message();
      } else if (read_burst()) {
        wait_readable();
        return;
      }
      io_.stop();
    });
  }

  // False when the device failed for good (deleted, say): the link is gone, and waiting again would
  // spin on a descriptor that is always readable.
  bool read_burst() {
    for (int i = 0; i < kReadBurst; ++i) {
      const ssize_t n = ::read(from_.native_handle(), buffer_.data(), buffer_.size());
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) return true;
      if (n <= 0) {
        failure_ = n < 0 ? std::strerror(errno) : "end of file";
        return false;
      }
      const bool was_empty = line_.queued_packets() == 0;
      line_.push(now(), std::vector<std::uint8_t>(buffer_.begin(), buffer_.begin() + n));
      if (was_empty) arm();
    }
    return true;
  }

  // The queue is FIFO, so its first release only moves when a packet enters an
  // empty queue or the first one leaves: the timer is armed at those two points.
  void arm() {
    const auto next = line_.next_release();
    if (!next) return;
    timer_.expires_at(std::chrono::steady_clock::time_point(
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(*next)));
    timer_.async_wait([this](const boost::system::error_code& ec) {
      if (ec) return;
      release_due();
    });
  }

  void release_due() {
    while (auto packet = line_.pop_due(now())) {
      // A TUN write hands the packet to the kernel's stack at once; a failure
      // (the device went down) loses the packet, as a link would.
      if (::write(to_, packet->data(), packet->size()) != static_cast<ssize_t>(packet->size())) ++write_errors_;
    }
    arm();
  }

  asio::io_context& io_;
  asio::posix::stream_descriptor from_;
  int to_;
  netspec::DelayLine line_;
  asio::steady_timer timer_;
  std::vector<std::uint8_t> buffer_;
  std::uint64_t write_errors_ = 0;
  std::string failure_;  // why reading stopped; empty while it runs
};

void print_counters(const char* name, const Direction& d) {
  const auto& c = d.counters();
  std::printf("{\"direction\": \"%s\", \"received\": %llu, \"lost\": %llu, \"overflow\": %llu, "
              "\"delivered\": %llu, \"delivered_bytes\": %llu, \"write_errors\": %llu}\n",
              name, static_cast<unsigned long long>(c.received), static_cast<unsigned long long>(c.lost),
              static_cast<unsigned long long>(c.overflow), static_cast<unsigned long long>(c.delivered),
              static_cast<unsigned long long>(c.delivered_bytes),
              static_cast<unsigned long long>(d.write_errors()));
}

}  // namespace

int run_delay_line(const DelayLineOptions& o) {
  TunDevice a(o.tun_a);
  TunDevice b(o.tun_b);
  for (const TunDevice* t : {&a, &b}) {
    if (t->fd() < 0) {
      std::fprintf(stderr, "conflux-net delay-line: %s\n", t->error().c_str());
      return 1;
    }
  }
  asio::io_context io(1);
  // Each direction has its own draws, so a-to-b losses do not depend on b-to-a traffic.
  Direction ab(io, a.fd(), b.fd(), o.link, o.seed);
  Direction ba(io, b.fd(), a.fd(), o.link, o.seed ^ 0x9e3779b97f4a7c15ULL);
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code&, int) { io.stop(); });
  ab.start();
  ba.start();
  // The caller moves the devices into their namespaces and configures them once it reads this line.
  std::printf("ready %s %s\n", o.tun_a.c_str(), o.tun_b.c_str());
  std::fflush(stdout);
  io.run();
  print_counters("a_to_b", ab);
  print_counters("b_to_a", ba);
  std::fflush(stdout);
  for (const auto& [name, d] : {std::pair{o.tun_a.c_str(), &ab}, std::pair{o.tun_b.c_str(), &ba}}) {
    if (!d->failure().empty()) {
      std::fprintf(stderr, "conflux-net delay-line: reading %s: %s\n", name, d->failure().c_str());
      return 1;
    }
  }
  return 0;
}

}  // namespace conflux::netapp
