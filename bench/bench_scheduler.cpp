// The relay core's schedulers (issue 6):
//   - BM_MuxCellSteady: the circuit mux's cost per cell (pop one, queue one) with
//     N active circuits, EWMA (min-heap, scaled counts) against round robin.
//   - BM_KistQuery: one KIST run's kernel queries (TCP_INFO + SIOCOUTQNSD)
//     and limit computation over N pending loopback TCP sockets; the
//     "per_socket" counter is the cost per pending socket (the deployment
//     paper measured about 1 us).
// Results and the exact command are in docs/BENCHMARKS.md.
#include <benchmark/benchmark.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "conflux/net/socket_info.hpp"
#include "conflux/proto/circuit_mux.hpp"
#include "conflux/proto/kist_limit.hpp"

namespace {

using namespace conflux;
using namespace conflux::proto;

// Each iteration pops a cell
// and queues one for the same circuit, so all N circuits stay active and the
// EWMA heap sees a real key change per cell.
void BM_MuxCellSteady(benchmark::State& state) {
  const auto circuits = static_cast<std::uint32_t>(state.range(0));
  const bool ewma = state.range(1) != 0;
  CircuitMux mux({.max_cells_per_circuit = 16, .max_control_bytes = 1024, .gauge = nullptr},
                 CircuitPriority{ewma ? 30.0 : 0.0});
  for (std::uint32_t c = 1; c <= circuits; ++c) {
    WireCell cell{};
    cell[0] = static_cast<std::uint8_t>(c >> 24);
    cell[1] = static_cast<std::uint8_t>(c >> 16);
    cell[2] = static_cast<std::uint8_t>(c >> 8);
    cell[3] = static_cast<std::uint8_t>(c);
    for (int i = 0; i < 2; ++i) (void)mux.push(CircId{c}, cell);
  }
  std::vector<std::uint8_t> out;
  out.reserve(kWireCellLen);
  MuxTime now{};
  WireCell back{};
  for (auto _ : state) {
    out.clear();
    now += std::chrono::microseconds(1);
    mux.pop_into(out, now);
    std::copy(out.begin(), out.begin() + 4, back.begin());
    const std::uint32_t c = (std::uint32_t{out[0]} << 24) | (std::uint32_t{out[1]} << 16) |
                            (std::uint32_t{out[2]} << 8) | out[3];
    (void)mux.push(CircId{c}, back);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(ewma ? "EWMA" : "round robin");
}

// N connected loopback TCP pairs; the client ends have sent a little data,
// as a pending socket would have.
struct SocketPairs {
  std::vector<int> fds;
  explicit SocketPairs(int n) {
    int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    if (listener < 0 || ::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        ::listen(listener, 1024) != 0 || ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      throw std::runtime_error("listen failed");
    }
    const char data[64] = {};
    for (int i = 0; i < n; ++i) {
      int c = ::socket(AF_INET, SOCK_STREAM, 0);
      if (c < 0 || ::connect(c, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
        throw std::runtime_error("connect failed");
      }
      int s = ::accept(listener, nullptr, nullptr);
      if (s < 0) throw std::runtime_error("accept failed");
      (void)::send(c, data, sizeof(data), 0);
      fds.push_back(c);
      fds.push_back(s);
    }
    ::close(listener);
  }
  ~SocketPairs() {
    for (int fd : fds) ::close(fd);
  }
  SocketPairs(const SocketPairs&) = delete;
  SocketPairs& operator=(const SocketPairs&) = delete;
};

void BM_KistQuery(benchmark::State& state) {
  const int pending = static_cast<int>(state.range(0));
  SocketPairs pairs(pending);
  std::uint64_t total = 0;
  for (auto _ : state) {
    for (int i = 0; i < pending; ++i) {
      auto r = net::query_tcp_info(pairs.fds[static_cast<std::size_t>(2 * i)]);
      if (r.info) total += kist_limit(*r.info, 0);
    }
  }
  benchmark::DoNotOptimize(total);
  state.counters["per_socket"] = benchmark::Counter(static_cast<double>(state.iterations()) * pending,
                                                    benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["sockets"] = pending;
}

}  // namespace

BENCHMARK(BM_MuxCellSteady)
    ->ArgsProduct({{10, 100, 10000}, {0, 1}})
    ->ArgNames({"circuits", "ewma"});
BENCHMARK(BM_KistQuery)->Arg(1)->Arg(10)->Arg(100)->Arg(1000)->ArgName("pending");
