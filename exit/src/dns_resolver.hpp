#pragma once
// The exit's resolver: c-ares on the exit's io_context. c-ares tells us which
// sockets it wants watched (its socket-state callback); each gets an Asio
// wait, and c-ares's own retry timer is one steady_timer. No thread, and
// many lookups in flight at once, each bounded by DnsSettings' per-try
// timeout and attempts.
//
// Identical forward lookups in flight share one query (as tor's pending
// resolves do), answers and failures are cached (DnsCache), and at most `max_queries`
// queries are in flight. A caller that stops caring (its stream ended) just
// ignores the answer: c-ares 1.18 cannot cancel one query (ares_cancel ends
// every query of a channel), and the query ends by its own timeout, still
// counted against `max_queries` (docs/OPERATORS.md, "DNS at the exit", says
// how long that is).
//
// New settings (SIGHUP, SETCONF) get a new c-ares channel: c-ares 1.18
// changes a channel's servers only while it has no query in flight
// (ares_set_servers_ports gives ARES_ENOTIMP), which a busy exit never has.
// The old channel keeps its queries until each has ended, then is destroyed.
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
  using Status = DnsStatus;
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
  // New settings (SIGHUP, SETCONF): new queries use them (empty servers:
  // /etc/resolv.conf, read again); queries in flight end on the old ones.
  // The cache is emptied, and lookups from now on do not join queries
  // asked of the old servers. False, changing nothing, when c-ares cannot
  // start a channel.
  bool reconfigure(const DnsSettings& settings);
  // c-ares channels alive: 1, plus old ones still ending their queries.
  [[nodiscard]] std::size_t channel_count() const noexcept { return 1 + retiring_.size(); }
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
  // A started channel with `settings`' options and servers; throws.
  ::ares_channeldata* open_channel(const DnsSettings& settings);
  // A query ended on `channel`: an old channel with none left is destroyed
  // (later: this runs inside c-ares's callback on that channel).
  void query_ended(::ares_channeldata* channel);
  void retire(::ares_channeldata* channel);

  boost::asio::io_context& io_;
  std::size_t max_queries_;
  ::ares_channeldata* channel_ = nullptr;  // new queries go here
  // Old channels still holding queries, and every channel's query count.
  std::vector<::ares_channeldata*> retiring_;
  std::unordered_map<::ares_channeldata*, std::size_t> queries_;
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
