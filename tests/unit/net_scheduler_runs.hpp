#pragma once
// Watches a scheduler run by run: drives the io_context one handler at a
// time and, after each handler that made a KIST or Vanilla run, notes what
// that run did (from SchedulerStats).
#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "conflux/net/scheduler.hpp"

namespace conflux::test {

struct RunRecord {
  std::uint64_t pending_sockets = 0;  // KIST runs
  std::uint64_t queries = 0;          // tcp_info_calls made by the run
  std::uint64_t kernel_calls = 0;
  std::uint64_t bytes = 0;            // moved to channel output by the run
  std::uint64_t cells = 0;
  std::uint64_t global_limit_bytes = 0;  // the cap the run used (0: none)
  std::uint64_t clock_reads = 0;         // when a read counter is given
  net::Clock::Monotonic::time_point started{};
};

// Up to `count` runs, or until `timeout` has passed. `clock_reads`, if set,
// is read before and after each handler.
inline std::vector<RunRecord> watch_runs(net::asio::io_context& io, const net::Scheduler& s, std::size_t count,
                                         std::chrono::milliseconds timeout,
                                         const std::function<std::uint64_t()>& clock_reads = {}) {
  std::vector<RunRecord> out;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  io.restart();
  while (out.size() < count && std::chrono::steady_clock::now() < deadline) {
    const net::SchedulerStats& st = s.stats();
    const std::uint64_t runs = st.runs, queries = st.tcp_info_calls, bytes = st.bytes, cells = st.cells;
    const std::uint64_t reads = clock_reads ? clock_reads() : 0;
    io.run_one_for(std::chrono::milliseconds(50));
    if (st.runs == runs) continue;
    RunRecord r;
    r.pending_sockets = st.pending_sockets_last;
    r.queries = st.tcp_info_calls - queries;
    r.kernel_calls = st.kernel_calls_last;
    r.bytes = st.bytes - bytes;
    r.cells = st.cells - cells;
    r.global_limit_bytes = st.global_limit_bytes;
    r.clock_reads = clock_reads ? clock_reads() - reads : 0;
    r.started = s.last_run();
    out.push_back(r);
  }
  return out;
}

}  // namespace conflux::test
