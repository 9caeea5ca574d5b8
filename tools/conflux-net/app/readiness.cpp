#include "readiness.hpp"

#include "conflux/dir/fields.hpp"
#include "conflux/dir/tor_server_descriptor.hpp"
#include "conflux/dirnet/consensus_fetcher.hpp"
#include "conflux/dirnet/tor_consensus_fetch.hpp"
#include "processes.hpp"
#include "stock_tor_control.hpp"

namespace conflux::netapp {

namespace asio = net::asio;
using namespace std::chrono_literals;
using netspec::Role;

namespace {

// What a relay logs once its listeners are open, and what tor (and so our
// proxy) logs when it can serve SOCKS requests.
constexpr std::string_view kRelayUp = " is up as ";
constexpr std::string_view kBootstrapped = "Bootstrapped 100%";
constexpr std::string_view kStockTorRelayUp = "Opened OR listener connection (ready) on ";

bool contains(const std::string& text, std::string_view what) { return text.find(what) != std::string::npos; }

bool port_taken_in(const Watched& w) {
  const auto text = read_file(w.log, 1 << 20) + read_file(w.output, 1 << 20);
  return contains(text, "Could not bind") || contains(text, "Address already in use");
}

// A process that ended, Ctrl-C or the deadline.
std::optional<Failure> common_checks(const ReadinessInputs& in, const std::string& waiting_for,
                                     const std::string& blame) {
  if (in.interrupted != nullptr && *in.interrupted != 0) return Failure{"", "interrupted", false};
  for (const auto& w : in.watched) {
    const auto status = reap_if_ended(w.pid);
    if (is_same_process(w.pid, w.start_time)) continue;
    const std::string how = status ? describe_wait_status(*status) : "ended";
    return Failure{w.name, how, port_taken_in(w)};
  }
  if (std::chrono::steady_clock::now() > in.deadline)
    return Failure{blame, "not ready in time: " + waiting_for, false};
  return std::nullopt;
}

asio::awaitable<void> pause(std::chrono::milliseconds d) {
  asio::steady_timer t(co_await asio::this_coro::executor, d);
  (void)co_await t.async_wait(net::use_nothrow);
}

asio::awaitable<bool> accepts_connections(asio::ip::address_v4 address, std::uint16_t port) {
  net::tcp::socket s(co_await asio::this_coro::executor);
  auto [ec] = co_await s.async_connect({address, port}, net::use_nothrow);
  co_return !ec;
}

// What a client checks before choosing an exit for the file server.
bool exits_to(const dir::RouterEntry& r, std::uint16_t port) {
  const auto summary = dir::parse_policy_summary(r.exit_policy);
  return summary && summary->allows_port(port);
}

const dir::RouterEntry* find_router(const dir::Consensus& c, const crypto::Ed25519Public& id) {
  for (const auto& r : c.body.routers)
    if (r.identity == id) return &r;
  return nullptr;
}

// The consensus the relays and proxies read: tor's microdesc one.
asio::awaitable<Result<dir::Consensus, dirnet::FetchErrc>> fetch_consensus_of(const ReadinessInputs& in,
                                                                               const net::Clock& clock) {
  dirnet::ConsensusQuery query;
  query.sources = in.authority_dirs;
  query.tor_authorities = in.tor_authorities;
  query.http.timeout = 3s;
  dirnet::TorDirCache cache;
  co_return co_await dirnet::fetch_tor_consensus(query, clock, 0, cache);
}

// A bridge's own descriptor from its DirPort: tor's at /tor/server/authority
// with the RSA fingerprint a Bridge line names. Empty when it verifies.
asio::awaitable<std::string> bridge_descriptor_problem(const Watched& w,
                                                       const net::Clock& clock) {
  const net::tcp::endpoint ep{w.address, w.ports.dir_port};
  // Named, not temporaries in the co_await: GCC 12 destroys a temporary
  // class argument of a coroutine call twice.
  std::string target = "/tor/server/authority";
  const dirnet::HttpLimits limits{3s, 8192, dir::kMaxTorServerDescriptorSize};
  auto got = co_await dirnet::http_get(ep, target, limits);
  if (!got) co_return std::string(dirnet::to_string(got.error()));
  if (got->status != 200) co_return "HTTP status " + std::to_string(got->status);
  auto d = dir::parse_tor_server_descriptor(got->body, clock.unix_seconds());
  if (!d) co_return std::string(dir::to_string(d.error().code));
  if (d->rsa_identity != w.rsa_fingerprint) co_return std::string("another relay's descriptor");
  co_return std::string();
}

// 4. Every stock tor relay's own consensus lists every relay: a fresh stock
// exit ends the first streams from a middle it does not know yet with MISC.
asio::awaitable<std::optional<Failure>> stock_relays_know_the_network(const ReadinessInputs& in) {
  std::vector<crypto::RsaFingerprint> relays;
  for (const auto& w : in.watched)
    if (w.role == Role::Relay || w.role == Role::Exit || w.role == Role::Authority) relays.push_back(w.rsa_fingerprint);
  for (const auto& w : in.watched) {
    if (!w.stock_tor) continue;
    for (;;) {
      // Its ControlPort is on its own address (its torrc).
      const net::tcp::endpoint control{w.address, w.ports.control_port};
      const auto missing = co_await stock_tor_unknown_relay(control,
                                                            w.data_dir / "control_auth_cookie", relays, 3s);
      if (!missing) break;
      if (auto f = common_checks(in, *missing, w.name)) co_return f;
      co_await pause(250ms);
    }
  }
  co_return std::nullopt;
}

asio::awaitable<std::optional<Failure>> network_ready(const net::Clock& clock, const ReadinessInputs& in) {
  // 1. Every relay listening, the file server answering.
  for (;;) {
    std::string missing;
    for (const auto& w : in.watched) {
      if (w.role == Role::FileServer) {
        if (!co_await accepts_connections(w.address, w.ports.http_port)) missing = w.name;
      } else if (netspec::is_relay_role(w.role) &&
                 !contains(read_file(w.log), w.stock_tor ? kStockTorRelayUp : kRelayUp)) {
        missing = w.name;
      }
      if (!missing.empty()) break;
    }
    if (missing.empty()) break;
    if (auto f = common_checks(in, missing + " has not started listening", missing)) co_return f;
    co_await pause(100ms);
  }

  // 2. A consensus listing every relay.
  std::string status = "no consensus fetched yet";
  std::string blame = in.watched.empty() ? std::string() : in.watched.front().name;
  for (const auto& w : in.watched)
    if (w.role == Role::Authority) blame = w.name;
  for (;;) {
    auto got = co_await fetch_consensus_of(in, clock);
    if (got) {
      std::string missing_names;
      std::string first_missing;
      std::size_t wanted = 0, listed = 0;
      for (const auto& w : in.watched) {
        if (w.role != Role::Relay && w.role != Role::Exit) continue;
        ++wanted;
        const auto* r = find_router(*got, w.identity);
        if (r != nullptr && r->flags.running && r->flags.valid && r->flags.fast &&
            (w.role != Role::Exit || exits_to(*r, in.file_port))) {
          ++listed;
        } else {
          missing_names += " " + w.name;
          if (first_missing.empty()) first_missing = w.name;
        }
      }
      if (listed == wanted) break;
      status = "the consensus lists " + std::to_string(listed) + " of " + std::to_string(wanted) +
               " relays as running (missing:" + missing_names + ")";
      blame = first_missing;
    } else {
      status = std::string("no consensus yet (") + std::string(dirnet::to_string(got.error())) + ")";
    }
    if (auto f = common_checks(in, status, blame)) co_return f;
    co_await pause(250ms);
  }

  // 3. Every bridge serving its own descriptor (clients fetch it there).
  for (const auto& w : in.watched) {
    if (w.role != Role::Bridge) continue;
    for (;;) {
      const auto problem = co_await bridge_descriptor_problem(w, clock);
      if (problem.empty()) break;
      if (auto f = common_checks(in, "its descriptor (" + problem + ")", w.name)) co_return f;
      co_await pause(250ms);
    }
  }
  co_return co_await stock_relays_know_the_network(in);
}

asio::awaitable<std::optional<Failure>> proxies_ready(const ReadinessInputs& in) {
  for (;;) {
    std::string missing;
    for (const auto& w : in.watched) {
      if (w.role == Role::Proxy && !contains(read_file(w.log), kBootstrapped)) {
        missing = w.name;
        break;
      }
    }
    if (missing.empty()) co_return std::nullopt;
    if (auto f = common_checks(in, "no \"Bootstrapped 100%\" in its log", missing)) co_return f;
    co_await pause(100ms);
  }
}

std::optional<Failure> run_to_end(asio::io_context& io, asio::awaitable<std::optional<Failure>> work) {
  std::optional<Failure> result;
  bool done = false;
  asio::co_spawn(io, std::move(work), [&](std::exception_ptr e, std::optional<Failure> r) {
    done = true;
    result = e ? std::optional<Failure>(Failure{"", "internal error while waiting", false}) : std::move(r);
  });
  io.restart();
  while (!done) io.run_one();
  return result;
}

}  // namespace

std::optional<Failure> wait_for_network(asio::io_context& io, const net::Clock& clock, const ReadinessInputs& in) {
  return run_to_end(io, network_ready(clock, in));
}

std::optional<Failure> wait_for_proxies(asio::io_context& io, const ReadinessInputs& in) {
  return run_to_end(io, proxies_ready(in));
}

}  // namespace conflux::netapp
