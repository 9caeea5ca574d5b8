#include "dns_resolver.hpp"

#include <ares.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>

#include <boost/asio/posix/stream_descriptor.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <variant>

namespace conflux::exit {

namespace asio = boost::asio;

// One socket c-ares asked us to watch. `gone` is set when c-ares closes it
// (or the resolver ends): a wait completing afterwards does nothing.
struct DnsResolver::Watch {
  Watch(asio::io_context& io, int socket) : fd(socket), desc(io, socket) {}
  int fd;
  asio::posix::stream_descriptor desc;
  bool want_read = false;
  bool want_write = false;
  bool reading = false;
  bool writing = false;
  bool gone = false;
};

// One c-ares query and everyone waiting for its answer.
struct DnsResolver::Query {
  DnsResolver* owner;
  ares_channeldata* channel;  // the channel it runs on
  std::string key;            // the forward name; empty for a reverse lookup
  std::vector<Done> waiters;
};

namespace {

// tor's evdns_err_is_transient, in c-ares's words: the server failed or did
// not answer, or we could not ask; anything else is an answer ("no such name").
DnsAnswer::Status status_of(int status) {
  switch (status) {
    case ARES_SUCCESS: return DnsAnswer::Status::Ok;
    case ARES_ENOTFOUND:
    case ARES_ENODATA:
    case ARES_EBADNAME:
    case ARES_EREFUSED:
    case ARES_EFORMERR:
    case ARES_ENOTIMP: return DnsAnswer::Status::NotFound;
    default: return DnsAnswer::Status::Transient;
  }
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

DnsAnswer addresses_of(const ares_addrinfo* result) {
  DnsAnswer a;
  a.status = DnsAnswer::Status::Ok;
  std::uint32_t ttl = UINT32_MAX;
  for (const ares_addrinfo_node* n = result ? result->nodes : nullptr; n; n = n->ai_next) {
    if (n->ai_family == AF_INET) {
      cell::Ipv4Bytes b{};
      std::memcpy(b.data(), &reinterpret_cast<const sockaddr_in*>(n->ai_addr)->sin_addr, 4);
      if (std::find(a.v4.begin(), a.v4.end(), b) == a.v4.end()) a.v4.push_back(b);
    } else if (n->ai_family == AF_INET6) {
      cell::Ipv6Bytes b{};
      std::memcpy(b.data(), &reinterpret_cast<const sockaddr_in6*>(n->ai_addr)->sin6_addr, 16);
      if (std::find(a.v6.begin(), a.v6.end(), b) == a.v6.end()) a.v6.push_back(b);
    } else {
      continue;
    }
    ttl = std::min(ttl, static_cast<std::uint32_t>(std::max(0, n->ai_ttl)));
  }
  if (a.v4.empty() && a.v6.empty()) a.status = DnsAnswer::Status::NotFound;
  a.ttl = ttl == UINT32_MAX ? 0 : ttl;
  return a;
}

ares_addr_port_node server_node(const DnsServer& s) {
  ares_addr_port_node n{};
  n.udp_port = s.port;
  n.tcp_port = s.port;
  if (const auto* v4 = std::get_if<cell::Ipv4Bytes>(&s.addr)) {
    n.family = AF_INET;
    std::memcpy(&n.addr.addr4, v4->data(), 4);
  } else {
    n.family = AF_INET6;
    std::memcpy(&n.addr.addr6, std::get<cell::Ipv6Bytes>(s.addr).data(), 16);
  }
  return n;
}

}  // namespace

DnsResolver::DnsResolver(asio::io_context& io, const DnsSettings& settings, std::size_t max_queries)
    : io_(io), max_queries_(max_queries), timer_(io), cache_(settings.cache_entries),
      fuzz_(std::random_device{}()) {
  if (ares_library_init(ARES_LIB_INIT_ALL) != ARES_SUCCESS) throw std::runtime_error("c-ares: library init failed");
  try {
    channel_ = open_channel(settings);
  } catch (...) {
    ares_library_cleanup();
    throw;
  }
}

DnsResolver::~DnsResolver() {
  *alive_ = false;
  // Runs every query's callback with ARES_EDESTRUCTION and closes the
  // sockets (each reported to on_socket_state first).
  ares_destroy(channel_);
  for (auto* old : retiring_) ares_destroy(old);
  for (auto& [fd, w] : watches_) {
    w->gone = true;
    (void)w->desc.release();
  }
  ares_library_cleanup();
}

ares_channeldata* DnsResolver::open_channel(const DnsSettings& settings) {
  ares_options o{};
  int mask = ARES_OPT_SOCK_STATE_CB | ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES | ARES_OPT_LOOKUPS | ARES_OPT_DOMAINS;
  o.sock_state_cb = &DnsResolver::on_socket_state;
  o.sock_state_cb_data = this;
  o.timeout = static_cast<int>(std::max<std::int64_t>(1, settings.per_try.count()));
  o.tries = std::max(1, settings.attempts);
  // tor's ServerDNSSearchDomains is 0: names are asked as given.
  o.domains = nullptr;
  o.ndomains = 0;
  char files_then_dns[] = "fb";
  char dns_only[] = "b";
  o.lookups = settings.hosts_file ? files_then_dns : dns_only;
  ares_channeldata* channel = nullptr;
  if (const int rc = ares_init_options(&channel, &o, mask); rc != ARES_SUCCESS)
    throw std::runtime_error(std::string("c-ares: ") + ares_strerror(rc));
  if (!settings.servers.empty()) {  // else c-ares's reading of /etc/resolv.conf
    std::vector<ares_addr_port_node> nodes;
    nodes.reserve(settings.servers.size());
    for (const auto& s : settings.servers) nodes.push_back(server_node(s));
    for (std::size_t i = 0; i + 1 < nodes.size(); ++i) nodes[i].next = &nodes[i + 1];
    if (const int rc = ares_set_servers_ports(channel, nodes.data()); rc != ARES_SUCCESS) {
      ares_destroy(channel);
      throw std::runtime_error(std::string("c-ares: ") + ares_strerror(rc));
    }
  }
  queries_[channel] = 0;
  return channel;
}

bool DnsResolver::reconfigure(const DnsSettings& settings) {
  ares_channeldata* fresh = nullptr;
  try {
    fresh = open_channel(settings);
  } catch (const std::runtime_error&) {
    return false;
  }
  ares_channeldata* old = std::exchange(channel_, fresh);
  cache_.clear();
  pending_.clear();  // their queries still answer their waiters
  if (queries_[old] == 0) {
    retire(old);
  } else {
    retiring_.push_back(old);
  }
  return true;
}

void DnsResolver::query_ended(ares_channeldata* channel) {
  auto& n = queries_[channel];
  if (n > 0) --n;
  if (n > 0 || channel == channel_) return;
  // c-ares is inside a callback of this channel: destroy it afterwards.
  asio::post(io_, [this, alive = alive_, channel] {
    if (!*alive) return;
    if (const auto it = queries_.find(channel); it != queries_.end() && it->second == 0 && channel != channel_) {
      retiring_.erase(std::remove(retiring_.begin(), retiring_.end(), channel), retiring_.end());
      retire(channel);
    }
  });
}

void DnsResolver::retire(ares_channeldata* channel) {
  queries_.erase(channel);
  ares_destroy(channel);  // closes its sockets through on_socket_state
}

bool DnsResolver::resolve(const std::string& name, Done done) {
  const std::string key = lower(name);
  if (auto hit = cache_.find(key, DnsCache::Clock::now())) {
    DnsAnswer a;
    a.status = hit->status;
    a.v4 = std::move(hit->v4);
    a.v6 = std::move(hit->v6);
    a.ttl = clip_dns_ttl(hit->ttl);
    a.from_cache = true;
    deliver_later(std::move(done), std::move(a));
    return true;
  }
  if (auto it = pending_.find(key); it != pending_.end()) {
    it->second->waiters.push_back(std::move(done));
    return true;
  }
  if (in_flight_ >= max_queries_) return false;
  auto* q = new Query{this, channel_, key, {}};
  q->waiters.push_back(std::move(done));
  pending_.emplace(key, q);
  ++in_flight_;
  ++queries_[channel_];
  ares_addrinfo_hints hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_flags = ARES_AI_NOSORT;
  starting_ = true;
  ares_getaddrinfo(channel_, key.c_str(), nullptr, &hints, &DnsResolver::on_addrinfo, q);
  starting_ = false;
  arm_timer();
  return true;
}

bool DnsResolver::reverse(const cell::RelayIpAddr& addr, Done done) {
  if (in_flight_ >= max_queries_) return false;
  auto* q = new Query{this, channel_, {}, {}};
  q->waiters.push_back(std::move(done));
  ++in_flight_;
  ++queries_[channel_];
  starting_ = true;
  if (const auto* v4 = std::get_if<cell::Ipv4Bytes>(&addr)) {
    ares_gethostbyaddr(channel_, v4->data(), 4, AF_INET, &DnsResolver::on_hostent, q);
  } else {
    ares_gethostbyaddr(channel_, std::get<cell::Ipv6Bytes>(addr).data(), 16, AF_INET6, &DnsResolver::on_hostent, q);
  }
  starting_ = false;
  arm_timer();
  return true;
}

void DnsResolver::on_addrinfo(void* arg, int status, int /*timeouts*/, ares_addrinfo* result) {
  auto* q = static_cast<Query*>(arg);
  DnsAnswer a;
  if (status == ARES_SUCCESS) {
    a = addresses_of(result);
  } else {
    a.status = status_of(status);
  }
  if (result) ares_freeaddrinfo(result);
  if (status == ARES_EDESTRUCTION) {
    delete q;
    return;
  }
  DnsResolver& self = *q->owner;
  // An answer from servers replaced meanwhile is not kept.
  const bool current = q->channel == self.channel_;
  const auto fuzz = static_cast<std::uint32_t>(self.fuzz_() % (2 * kFuzzyDnsTtl + 1));
  if (a.status == DnsAnswer::Status::Ok) {
    const auto lifetime = std::chrono::seconds(clip_dns_fuzzy_ttl(a.ttl, fuzz));
    if (current) self.cache_.store(q->key, CachedAnswer{a.status, a.v4, a.v6, a.ttl}, DnsCache::Clock::now(), lifetime);
    a.ttl = clip_dns_ttl(a.ttl);
  } else if (current) {
    const auto lifetime = std::chrono::seconds(negative_dns_lifetime(fuzz));
    self.cache_.store(q->key, CachedAnswer{a.status, {}, {}, 0}, DnsCache::Clock::now(), lifetime);
  }
  if (const auto it = self.pending_.find(q->key); it != self.pending_.end() && it->second == q) self.pending_.erase(it);
  self.finish(q, a);
}

void DnsResolver::on_hostent(void* arg, int status, int /*timeouts*/, hostent* host) {
  auto* q = static_cast<Query*>(arg);
  if (status == ARES_EDESTRUCTION) {
    delete q;
    return;
  }
  DnsAnswer a;
  a.status = status_of(status);
  if (a.status == DnsAnswer::Status::Ok) {
    a.hostname = host && host->h_name ? host->h_name : "";
    if (a.hostname.empty()) a.status = DnsAnswer::Status::NotFound;
  }
  // c-ares gives no TTL for PTR answers: the low one.
  a.ttl = kMinDnsTtl;
  q->owner->finish(q, a);
}

void DnsResolver::finish(Query* q, const DnsAnswer& answer) {
  --in_flight_;
  query_ended(q->channel);
  std::vector<Done> waiters = std::move(q->waiters);
  delete q;
  // A waiter may start new lookups; the query is already forgotten. An
  // answer c-ares found at once (/etc/hosts) waits for the io_context.
  for (auto& done : waiters) {
    if (starting_) {
      deliver_later(std::move(done), answer);
    } else {
      done(answer);
    }
  }
}

void DnsResolver::deliver_later(Done done, DnsAnswer answer) {
  asio::post(io_, [alive = alive_, done = std::move(done), answer = std::move(answer)] {
    if (*alive) done(answer);
  });
}

void DnsResolver::on_socket_state(void* self, int fd, int readable, int writable) {
  static_cast<DnsResolver*>(self)->socket_state(fd, readable != 0, writable != 0);
}

void DnsResolver::socket_state(int fd, bool readable, bool writable) {
  auto it = watches_.find(fd);
  if (!readable && !writable) {
    // c-ares closes the socket right after this: hand it back untouched.
    if (it == watches_.end()) return;
    it->second->gone = true;
    (void)it->second->desc.release();
    watches_.erase(it);
    return;
  }
  if (it == watches_.end()) it = watches_.emplace(fd, std::make_shared<Watch>(io_, fd)).first;
  const auto w = it->second;
  w->want_read = readable;
  w->want_write = writable;
  if (readable && !w->reading) wait_on(w, false);
  if (writable && !w->writing) wait_on(w, true);
}

void DnsResolver::wait_on(const std::shared_ptr<Watch>& w, bool write) {
  (write ? w->writing : w->reading) = true;
  const auto what = write ? asio::posix::stream_descriptor::wait_write : asio::posix::stream_descriptor::wait_read;
  w->desc.async_wait(what, [this, w, write, alive = alive_](const boost::system::error_code& ec) {
    (write ? w->writing : w->reading) = false;
    if (!*alive || w->gone || ec == asio::error::operation_aborted) return;
    if (write) {
      process(ARES_SOCKET_BAD, w->fd);
    } else {
      process(w->fd, ARES_SOCKET_BAD);
    }
    // Still wanted (c-ares did not say otherwise): wait again.
    if (w->gone) return;
    if (!write && w->want_read && !w->reading) wait_on(w, false);
    if (write && w->want_write && !w->writing) wait_on(w, true);
  });
}

void DnsResolver::process(int read_fd, int write_fd) {
  // A socket belongs to one channel; the others find it is not theirs. The
  // list is copied: a callback may retire a channel (posted, not now) or
  // reconfigure (a new current channel).
  const std::vector<ares_channeldata*> old = retiring_;
  for (auto* ch : old) ares_process_fd(ch, read_fd, write_fd);
  ares_process_fd(channel_, read_fd, write_fd);
  arm_timer();
}

void DnsResolver::arm_timer() {
  // The soonest deadline of every channel: ares_timeout returns `maxtv`
  // when that is sooner than its own (or it has no query), else its buffer.
  std::array<timeval, 2> buf{};
  timeval* soonest = nullptr;
  std::size_t next = 0;
  for (auto* ch : retiring_) {
    soonest = ares_timeout(ch, soonest, &buf[next]);
    if (soonest == &buf[next]) next ^= 1;
  }
  soonest = ares_timeout(channel_, soonest, &buf[next]);
  if (soonest == nullptr) {
    timer_.cancel();
    return;
  }
  const timeval tv = *soonest;
  timer_.expires_after(std::chrono::seconds(tv.tv_sec) + std::chrono::microseconds(tv.tv_usec));
  timer_.async_wait([this, alive = alive_](const boost::system::error_code& ec) {
    if (!*alive || ec == asio::error::operation_aborted) return;
    process(ARES_SOCKET_BAD, ARES_SOCKET_BAD);
  });
}

}  // namespace conflux::exit
