#pragma once
// A ConfluxPool over FakeLegs and the sans-I/O exit (proxy_conflux_support.hpp),
// with a fake single-circuit pool to fall back to, for the pool's tests.
#include <catch2/catch.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "conflux/client/conflux_pool.hpp"
#include "proxy_conflux_support.hpp"

namespace conflux::test {

using client::ConfluxPool;
using client::ConfluxTunnel;

// A single circuit, as the fallback pool hands it out.
class FakeCircuitCarrier final : public client::StreamCarrier {
 public:
  explicit FakeCircuitCarrier(std::uint64_t serial) : serial_(serial) {}
  [[nodiscard]] std::optional<StreamId> attach(client::StreamEvents& events) override {
    return client::add_stream(streams_, next_, events);
  }
  void detach(StreamId id) override { streams_.erase(id.value()); }
  bool send(StreamId, const cell::RelayMsg&) override { return true; }
  [[nodiscard]] bool can_send_data() const override { return true; }
  void close(cell::DestroyReason, std::string_view) override {}
  [[nodiscard]] std::uint64_t serial() const override { return serial_; }
  [[nodiscard]] std::string name() const override { return "circuit " + std::to_string(serial_); }
  [[nodiscard]] client::RelayIdentity exit_identity() const override { return relay_id(201); }

 private:
  std::uint64_t serial_;
  std::map<std::uint16_t, client::StreamEvents*> streams_;
  std::uint16_t next_ = 1;
};

// The single-circuit pool: a circuit at once when `serve`, else nothing
// until the deadline (no path, say). Counts what the Conflux pool passes on.
struct FakeCircuitPool final : client::StreamPool {
  explicit FakeCircuitPool(const net::Clock& c) : clock(c) {}
  const net::Clock& clock;
  bool serve = true;
  unsigned acquires = 0, claims = 0, done = 0, retired = 0;
  // Serial 1, as the first set's: the Conflux pool must tell them apart by more than the serial.
  std::vector<std::unique_ptr<FakeCircuitCarrier>> circuits;

  net::awaitable<client::StreamCarrier*> acquire(client::StreamNeeds, Clock::time_point deadline, bool*) override {
    ++acquires;
    if (serve) co_return circuits.emplace_back(std::make_unique<FakeCircuitCarrier>(circuits.size() + 1)).get();
    net::asio::steady_timer t(co_await net::asio::this_coro::executor);
    t.expires_at(deadline);
    (void)co_await t.async_wait(net::use_nothrow);
    co_return nullptr;
  }
  void claim(client::StreamCarrier&, const std::string&) override { ++claims; }
  void stream_done(client::StreamCarrier&) override { ++done; }
  void retire(client::StreamCarrier&) override { ++retired; }
};

struct PoolRig {
  boost::asio::io_context io;
  ManualClock clock;
  FakeExit exit{clock};
  std::vector<std::unique_ptr<FakeLeg>> legs;
  std::vector<client::PathRequest> requests;
  std::uint64_t next_serial = 100;
  // Returns the problem for a request, or nothing to launch a leg.
  std::function<std::optional<client::PathProblem>(const client::PathRequest&)> refuse;
  std::vector<std::string> log_lines;
  FakeCircuitPool single{clock};
  std::unique_ptr<ConfluxPool> pool;

  // Streams in the tests outlive the pool's sets.
  std::vector<std::unique_ptr<FakeStream>> streams;
  FakeStream& stream() { return *streams.emplace_back(std::make_unique<FakeStream>()); }
  ~PoolRig() { pool.reset(); }
  PoolRig(const PoolRig&) = delete;
  PoolRig& operator=(const PoolRig&) = delete;

  explicit PoolRig(ConfluxPool::Options o = {}, bool with_fallback = false) {
    ConfluxPool::Hooks h;
    if (with_fallback) h.fallback = &single;
    h.launch_leg = [this](const client::PathRequest& r, client::LegOwner& owner,
                          client::PathProblem* problem) -> client::LegCircuit* {
      requests.push_back(r);
      if (refuse) {
        if (auto p = refuse(r)) {
          if (problem != nullptr) *problem = *p;
          return nullptr;
        }
      }
      // Exit 200 is the only exit.
      const std::uint8_t exit_id = r.exit ? (*r.exit)[0] : 200;
      if (r.avoid_exits.count(relay_id(exit_id)) != 0) {
        if (problem != nullptr) problem->why = "no exit left that did not refuse the stream";
        return nullptr;
      }
      // Guards 1, 2, ...: the first one not excluded (or the one asked for).
      std::uint8_t guard = 1;
      if (r.first_hop) {
        guard = (*r.first_hop)[0];
      } else {
        while (r.exclude.count(relay_id(guard)) != 0) ++guard;
      }
      client::CircuitInfo info;
      info.serial = next_serial++;
      info.path = {hop(guard), hop(static_cast<std::uint8_t>(100 + guard)), hop(exit_id, "accept 80,443")};
      auto leg = std::make_unique<FakeLeg>(std::move(info));
      leg->set_leg_owner(&owner);
      exit.legs[leg->serial()] = leg.get();
      legs.push_back(std::move(leg));
      return legs.back().get();
    };
    h.exit_allows = [](const std::string& policy, std::uint16_t port) {
      return policy == "accept 80,443" && (port == 80 || port == 443);
    };
    auto log = [this](net::LogLevel, std::string_view line) { log_lines.emplace_back(line); };
    pool = std::make_unique<ConfluxPool>(clock, o, std::move(h), log);
  }

  void open_all() {
    for (auto& l : legs)
      if (!l->closed && l->owner != nullptr && l->to_exit.empty()) l->open();
    exit.run();
  }

  // The exit forgets the sets whose legs the client closed, as the join
  // point does when their circuits go (it caps sets per client).
  void exit_forgets_closed_sets() {
    std::map<proto::SetId, bool> open;
    for (auto& [serial, leg] : exit.legs)
      if (auto id = exit.registry.set_of(FakeExit::leg_of(serial))) open[*id] = open[*id] || !leg->closed;
    for (const auto& [id, any_open] : open) {
      if (any_open) continue;
      exit.registry.forget_set(id);
      exit.sets.erase(id);
    }
    std::erase_if(exit.legs, [&](const auto& kv) {
      return kv.second->closed && !exit.registry.set_of(FakeExit::leg_of(kv.first));
    });
  }

  [[nodiscard]] bool logged(std::string_view needle) const {
    for (const auto& l : log_lines)
      if (l.find(needle) != std::string::npos) return true;
    return false;
  }

  // Runs acquire() to completion, building and linking legs as they come.
  client::StreamCarrier* acquire(client::StreamNeeds needs, bool* no_exit = nullptr,
                                 std::chrono::milliseconds limit = 5s) {
    std::optional<client::StreamCarrier*> result;
    boost::asio::co_spawn(
        io,
        [&]() -> net::awaitable<void> {
          result = co_await pool->acquire(std::move(needs), clock.now() + limit, no_exit);
        },
        boost::asio::detached);
    const auto give_up = std::chrono::steady_clock::now() + limit + 2s;
    while (!result && std::chrono::steady_clock::now() < give_up) {
      if (io.stopped()) io.restart();
      io.run_for(5ms);
      open_all();
    }
    REQUIRE(result);
    return *result;
  }
};

}  // namespace conflux::test
