#pragma once
// The exit's resolver: c-ares on the exit's io_context. c-ares tells us which
// sockets it wants watched (its socket-state callback); each gets an Asio
// wait, and c-ares's own retry timer is one steady_timer. No thread, and
// many lookups in flight at once, each bounded by DnsSettings' per-try
// timeout and attempts.
//
// Identical forward lookups in flight share one query (as tor's pending
// resolves do), answers are cached (DnsCache), and at most `max_queries`
// queries are in flight. A caller that stops caring (its stream ended) just
// ignores the answer: c-ares 1.18 cannot cancel one query, and the query
// ends by its own timeout, still counted against `max_queries`.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "conflux/exit/exit_config.hpp"
#include "conflux/net/asio.hpp"
#include "dns_cache.hpp"

// c-ares's types, named here without its header.
struct ares_channeldata;
struct ares_addrinfo;
struct hostent;

namespace conflux::exit {

struct DnsAnswer {
  enum class Status : std::uint8_t { Ok, NotFound, Transient };
  Status status = Status::Transient;
  std::vector<cell::Ipv4Bytes> v4;
  std::vector<cell::Ipv6Bytes> v6;
  std::string hostname;         // a reverse lookup's answer
  std::uint32_t ttl = 0;        // clipped (clip_dns_ttl), what the client is told
  bool from_cache = false;
};

class DnsResolver {
 public:
  using Done = std::function<void(const DnsAnswer&)>;

  // Throws std::runtime_error when c-ares cannot start.
  DnsResolver(boost::asio::io_context& io, const DnsSettings& settings, std::size_t max_queries);
  ~DnsResolver();
  DnsResolver(const DnsResolver&) = delete;
  DnsResolver& operator=(const DnsResolver&) = delete;

  // A/AAAA for `name`. False (and `done` is never called) when `max_queries`
  // are in flight. A cached answer is delivered from the io_context, never
  // from inside this call.
  bool resolve(const std::string& name, Done done);
  // PTR for `addr`, same rules (not cached).
  bool reverse(const cell::RelayIpAddr& addr, Done done);
  // Queries c-ares holds, including those nobody waits for any more.
  [[nodiscard]] std::size_t in_flight() const noexcept { return in_flight_; }
  // Nameservers changed (SIGHUP): new queries use them. The per-try timeout
  // and attempts are fixed when the channel starts.
  void reconfigure(const DnsSettings& settings);
  void clear_cache() { cache_.clear(); }

 private:
  struct Watch;
  struct Query;
  static void on_socket_state(void* self, int fd, int readable, int writable);
  static void on_addrinfo(void* arg, int status, int timeouts, ::ares_addrinfo* result);
  static void on_hostent(void* arg, int status, int timeouts, ::hostent* host);

  void socket_state(int fd, bool readable, bool writable);
  void wait_on(const std::shared_ptr<Watch>& w, bool write);
  void process(int read_fd, int write_fd);
  void arm_timer();
  void finish(Query* q, const DnsAnswer& answer);
  void deliver_later(Done done, DnsAnswer answer);
  void configure_servers(const DnsSettings& settings);

  boost::asio::io_context& io_;
  std::size_t max_queries_;
  ::ares_channeldata* channel_ = nullptr;
  std::unordered_map<int, std::shared_ptr<Watch>> watches_;
  boost::asio::steady_timer timer_;
  // Handlers queued on the io_context check this before touching *this.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  std::unordered_map<std::string, Query*> pending_;  // forward lookups by name
  std::size_t in_flight_ = 0;
  bool starting_ = false;  // inside a c-ares call that starts a query
  DnsCache cache_;
  std::minstd_rand fuzz_;
};

}  // namespace conflux::exit
