#pragma once
// The socket scheduler: decides which channel writes, when, and how much.
// Channels with queued cells become pending (notify()). The policy is the
// first usable one of `Schedulers` (tor's names and order):
//
//   - Vanilla ("as much as possible"): one run posted after the current
//     event, so a burst of cells becomes one decision; each pending channel
//     that is not mid-write gets a batch, circuits ordered by its own mux.
//   - KIST (Jansen et al. 2014/2018, tor's scheduler_kist.c): runs at most
//     every KISTSchedRunInterval. Each run asks the kernel once per pending
//     socket how much it can send soon (proto/kist_limit.hpp: tor's limit
//     from TCP_INFO + SIOCOUTQNSD, or with KISTLimit Original the 2014
//     paper's from SO_SNDBUF + SIOCOUTQ + TCP_INFO), then moves cells one at
//     a time, always from the pending channel whose next circuit has the
//     lowest EWMA count across all of them, so circuit priority works across
//     sockets. A channel's output is handed to the kernel when the next cell
//     goes to another socket and at the end of the run. KISTGlobalLimit adds
//     the paper's cap on a run's total (proto/kist_global_limit.hpp).
//   - KISTLite: KIST without kernel information (32 KiB per socket).
//
// A run reads the injected clock once and uses that time for every cell,
// circuit and socket it serves (seeds-digest E4). KIST's interval timer is
// armed at the start of each run, so runs with work waiting are one
// interval apart (K2) and a notify never needs the clock.
//
// A light KIST run does not hold the next (KISTSchedHoldMinCells, ours):
// the interval exists so that cells of many circuits meet in one decision,
// which only matters when there is enough work to order. A run that moved
// fewer cells than that and left no socket at a limit releases the timer, so
// a request and its answer crossing an idle relay are not held an interval
// at each hop; a busy relay (bulk, many circuits, a limit reached) keeps
// tor's timing. 0 holds after every run, as tor does.
//
// The bandwidth bucket (BandwidthRate/Burst) bounds every policy's writes.
#include <chrono>
#include <cstdint>
#include <deque>
#include <fstream>
#include <span>
#include <string>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "conflux/net/asio.hpp"
#include "conflux/net/clock.hpp"
#include "conflux/net/scheduler_stats.hpp"
#include "conflux/proto/circuit_priority.hpp"
#include "conflux/proto/kist_global_limit.hpp"
#include "conflux/proto/token_bucket.hpp"

namespace conflux::net {

class Channel;

enum class SchedulerPolicy : std::uint8_t { Kist, KistLite, Vanilla };
// KISTLimit: tor's per-socket limit, or the 2014 paper's Eq. 1.
enum class KistLimitForm : std::uint8_t { Deployed, Original };

struct SchedulerConfig {
  // Tried in order; the first usable one wins (Vanilla always is).
  std::vector<SchedulerPolicy> preference{SchedulerPolicy::Kist, SchedulerPolicy::KistLite, SchedulerPolicy::Vanilla};
  // KISTSchedRunInterval: tor's default today is 2 ms (the papers used 10).
  std::chrono::microseconds run_interval{2000};
  double sock_buf_size_factor = 1.0;  // KISTSockBufSizeFactor (Deployed only)
  KistLimitForm limit_form = KistLimitForm::Deployed;  // KISTLimit
  bool global_limit = false;                           // KISTGlobalLimit
  // KISTSchedHoldMinCells: a run that moved fewer cells (and left none
  // waiting on a limit) does not hold the next. 0: every run holds (tor).
  std::uint32_t hold_min_cells = 8;
  // Experiments: a text file that gets one line per sampled cell (relay and
  // kernel queue time) and per KIST run (pending sockets, kernel query
  // time). Empty: no trace. The file is bounded by `trace_max_lines`.
  std::string trace_path;
  std::uint64_t trace_max_lines = 1'000'000;
};

// The policy `config` selects on this build (KIST needs TCP_INFO and
// SIOCOUTQNSD; both KIST forms need a positive run interval).
[[nodiscard]] SchedulerPolicy choose_scheduler_policy(const SchedulerConfig& config) noexcept;
[[nodiscard]] const char* scheduler_policy_name(SchedulerPolicy p) noexcept;

class Scheduler {
 public:
  // `bucket` may be null (no BandwidthRate); it must outlive the scheduler.
  Scheduler(asio::io_context& io, const Clock& clock, proto::TokenBucket* bucket, SchedulerConfig config = {});

  // The channel has cells queued, or finished a write and may have more.
  void notify(const std::shared_ptr<Channel>& channel);
  // The channel handed bytes to the kernel that include these sampled
  // cells: relay queue time, then a kernel probe for the write.
  void cells_leaving(Channel& channel, std::span<const proto::CellSample> cells);

  // Starts a fresh trace in `path` (truncated; trace times count from now),
  // or stops tracing (empty). False when the file cannot be opened: no trace.
  bool set_trace_file(const std::string& path);
  [[nodiscard]] const std::string& trace_file() const noexcept { return config_.trace_path; }

  [[nodiscard]] SchedulerPolicy policy() const noexcept { return policy_; }
  [[nodiscard]] std::uint64_t runs() const noexcept { return stats_.runs; }
  [[nodiscard]] std::uint64_t bytes_scheduled() const noexcept { return stats_.bytes; }
  [[nodiscard]] const SchedulerStats& stats() const noexcept { return stats_; }
  [[nodiscard]] SchedulerStats& stats() noexcept { return stats_; }
  // The injected clock's time at the start of the latest KIST run.
  [[nodiscard]] Clock::Monotonic::time_point last_run() const noexcept { return last_run_; }

 private:
  struct Pending {
    std::weak_ptr<Channel> channel;
    const Channel* key;  // identity for de-duplication, never dereferenced
  };

  void schedule();
  void post_run();
  void run_vanilla();
  void run_kist();
  void arm_run_timer();
  void release_run_timer();
  void observe_global_drain(std::unordered_map<std::uint64_t, std::uint64_t> acked,
                            Clock::Monotonic::time_point previous_run, Clock::Monotonic::time_point now);
  void wait_for_tokens();
  void add_pending(Pending p);
  // Kernel-queue probes (scheduler_probes.cpp).
  void start_probe(Channel& channel, std::span<const proto::CellSample> cells, Clock::Monotonic::time_point now);
  void arm_probe_timer(Clock::Monotonic::time_point now);
  void check_probes();
  void look_at_probes_in_run(const std::unordered_map<std::uint64_t, std::uint64_t>& acked,
                             Clock::Monotonic::time_point now);
  void trace(const char* what, std::uint64_t a, std::uint64_t b = 0);
  [[nodiscard]] bool tracing() const noexcept { return trace_ && trace_lines_ < config_.trace_max_lines; }
  [[nodiscard]] std::uint64_t trace_ns(Clock::Monotonic::time_point t) const noexcept;

  // Posted runs and timers hold a weak reference to this, so a scheduler
  // destroyed while the io_context still runs is never touched.
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
  asio::io_context& io_;
  const Clock& clock_;
  proto::TokenBucket* bucket_;
  SchedulerConfig config_;
  SchedulerPolicy policy_;
  bool kernel_info_ = true;  // KIST until the kernel says it has no TCP_INFO
  asio::steady_timer refill_timer_;
  asio::steady_timer run_timer_;
  std::deque<Pending> pending_;
  std::unordered_set<const Channel*> pending_set_;
  bool run_posted_ = false;
  bool run_timer_armed_ = false;
  std::uint64_t run_timer_generation_ = 0;  // a released timer's wait is stale
  bool waiting_for_tokens_ = false;
  Clock::Monotonic::time_point last_run_{};
  // Set during a run: the run's one clock reading, also for the cells whose
  // write it starts (cells_leaving).
  std::optional<Clock::Monotonic::time_point> run_now_;
  SchedulerStats stats_;
  // KISTGlobalLimit: the estimate, and each socket's acknowledged bytes at
  // the previous run (by channel ID; at most the pending sockets of a run).
  proto::KistGlobalLimit global_;
  std::unordered_map<std::uint64_t, std::uint64_t> acked_at_last_run_;

  // A sampled write: done when the peer has acknowledged `acked_target`.
  // It carried the channel's sampled cells first_seq..last_seq. It is
  // looked at again at `next_poll` (proto/kernel_probe_schedule.hpp), or
  // earlier by a KIST run that reads its socket anyway.
  struct KernelProbe {
    std::weak_ptr<Channel> channel;
    std::uint64_t channel_id;
    Clock::Monotonic::time_point written;
    std::uint64_t acked_target;
    std::uint64_t first_seq;
    std::uint64_t last_seq;
    Clock::Monotonic::time_point next_poll;
    [[nodiscard]] bool settled_by(std::uint64_t acked) const noexcept { return acked >= acked_target; }
  };
  void settle_probe(const KernelProbe& p, Clock::Monotonic::time_point observed);
  static constexpr std::size_t kMaxProbes = 256;
  std::vector<KernelProbe> probes_;
  // One timer for all probes, armed for the earliest look; a wait that was
  // re-armed earlier is stale (its generation is old).
  asio::steady_timer probe_timer_;
  bool probe_timer_armed_ = false;
  std::uint64_t probe_timer_generation_ = 0;
  Clock::Monotonic::time_point probe_timer_due_{};
  std::unique_ptr<std::ofstream> trace_;
  std::uint64_t trace_lines_ = 0;
  Clock::Monotonic::time_point trace_epoch_{};  // trace times are nanoseconds since
};

}  // namespace conflux::net
