// One KIST run (scheduler.hpp): kernel limits for the pending sockets, then
// cell-by-cell global EWMA order across them, within limits and the bucket.
#include <limits>
#include <queue>
#include <vector>

#include "conflux/net/channel.hpp"
#include "conflux/net/scheduler.hpp"
#include "conflux/net/socket_info.hpp"
#include "conflux/proto/kist_limit.hpp"

namespace conflux::net {
namespace {

struct Candidate {
  std::shared_ptr<Channel> channel;
  const Channel* key;
  std::uint64_t limit = 0;
  std::uint64_t written = 0;
  bool touched = false;
};

// Heap entry: the channel whose next cell has the lowest EWMA count first;
// among equals, the one that has waited longest for this turn.
struct Turn {
  double priority;
  std::uint64_t seq;
  std::size_t index;
  bool operator>(const Turn& o) const noexcept {
    return priority > o.priority || (priority == o.priority && seq > o.seq);
  }
};

// One pending socket's kernel query and the limit it gives.
struct SocketReading {
  std::uint64_t limit = 0;
  std::optional<std::uint64_t> bytes_acked;
  std::uint32_t syscalls = 0;
  bool unsupported = false;
};

SocketReading read_socket(int fd, const SchedulerConfig& config, std::uint64_t outbuf) {
  SocketReading s;
  if (config.limit_form == KistLimitForm::Original) {
    KistOriginalInfo r = query_kist_original(fd);
    s.syscalls = r.syscalls;
    s.unsupported = r.unsupported;
    if (r.tcp && r.buffer) {
      s.limit = proto::kist_original_limit(*r.tcp, *r.buffer, outbuf);
      s.bytes_acked = r.bytes_acked;
      return s;
    }
  } else {
    TcpInfoResult r = query_tcp_info(fd);
    s.syscalls = r.syscalls;
    s.unsupported = r.unsupported;
    if (r.info) {
      s.limit = proto::kist_limit(*r.info, outbuf, config.sock_buf_size_factor);
      s.bytes_acked = r.bytes_acked;
      return s;
    }
  }
  s.limit = proto::kist_lite_limit(outbuf);  // this socket, this run (or for good if unsupported)
  return s;
}

// A run's step 1 in the stats: its pending sockets and their kernel queries.
void count_queries(SchedulerStats& st, std::uint64_t sockets, std::uint64_t queries, std::uint64_t syscalls,
                   std::uint64_t q_ns) {
  st.pending_sockets_last = sockets;
  st.pending_sockets_total += sockets;
  st.pending_sockets_max = std::max(st.pending_sockets_max, sockets);
  st.tcp_info_calls += queries;
  st.kernel_calls += syscalls;
  st.kernel_calls_last = syscalls;
  st.tcp_info_ns_last = q_ns;
  st.tcp_info_ns_total += q_ns;
  st.pending_sockets.observe(static_cast<double>(sockets));
  if (queries > 0) st.tcp_info_seconds.observe(static_cast<double>(q_ns) * 1e-9);
}

}  // namespace

void Scheduler::run_kist() {
  ++stats_.runs;
  ++stats_.kist_runs;
  const std::uint64_t cells_before = stats_.cells;
  const auto now = clock_.now();  // the run's one clock read, for every cell (E4)
  run_now_ = now;
  const auto previous_run = last_run_;
  last_run_ = now;
  arm_run_timer();  // the next run is one interval after this one starts (K2)
  if (bucket_ != nullptr) bucket_->refill(now);

  // 1. One kernel query per pending socket, none for the others.
  std::vector<Candidate> cands;
  cands.reserve(pending_.size());
  std::uint64_t queries = 0;
  std::uint64_t syscalls = 0;
  std::uint64_t outbuf_total = 0;
  // Acknowledged bytes by channel, for KISTGlobalLimit and the kernel-queue probes.
  std::unordered_map<std::uint64_t, std::uint64_t> acked;
  const bool want_acked = config_.global_limit || !probes_.empty();
  const auto q_start = std::chrono::steady_clock::now();
  for (Pending& p : pending_) {
    auto ch = p.channel.lock();
    if (!ch || ch->closed() || ch->mux().empty()) continue;  // nothing to do: it notifies when it has cells
    std::uint64_t outbuf = ch->pending_output_bytes();
    outbuf_total += outbuf;
    std::uint64_t limit = 0;
    if (policy_ == SchedulerPolicy::Kist && kernel_info_) {
      ++queries;
      SocketReading r = read_socket(ch->native_socket(), config_, outbuf);
      syscalls += r.syscalls;
      if (r.unsupported) kernel_info_ = false;  // tor: KISTLite from now on
      limit = r.limit;
      if (want_acked && r.bytes_acked) acked.emplace(ch->id(), *r.bytes_acked);
    } else {
      limit = proto::kist_lite_limit(outbuf);
    }
    cands.push_back({std::move(ch), p.key, limit, 0, false});
  }
  const auto q_ns = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - q_start).count());
  pending_.clear();
  pending_set_.clear();
  count_queries(stats_, cands.size(), queries, syscalls, q_ns);
  trace("run_pending_sockets_tcp_info_ns", cands.size(), q_ns);
  look_at_probes_in_run(acked, now);  // before this run's writes start new ones

  // The global cap covers what we already hold for these sockets too: it
  // reaches the kernel in this period as well.
  std::optional<std::uint64_t> global_budget;
  if (config_.global_limit) {
    observe_global_drain(std::move(acked), previous_run, now);
    if (auto cap = global_.cap()) global_budget = *cap > outbuf_total ? *cap - outbuf_total : 0;
  }

  // 2. Cell by cell, always the best circuit across all eligible sockets.
  std::priority_queue<Turn, std::vector<Turn>, std::greater<>> turns;
  std::uint64_t seq = 0;
  std::vector<std::size_t> readd;  // still have cells: pending again next run
  for (std::size_t i = 0; i < cands.size(); ++i) {
    if (cands[i].limit < proto::kKistCellCost) {
      ++stats_.limit_reached;
      readd.push_back(i);
      continue;
    }
    turns.push({cands[i].channel->mux().next_priority(now).value_or(0.0), seq++, i});
  }
  // Stops the run with `index` and every socket still in line left for the next.
  auto stop_here = [&](std::size_t index) {
    readd.push_back(index);
    while (!turns.empty()) {
      readd.push_back(turns.top().index);
      turns.pop();
    }
  };
  Candidate* previous = nullptr;
  bool out_of_tokens = false;
  while (!turns.empty()) {
    Turn t = turns.top();
    turns.pop();
    Candidate& c = cands[t.index];
    // Batching: a channel's output goes to the kernel when the next cell is
    // for another socket (and at the end of the run for the rest).
    if (previous != nullptr && previous != &c) previous->channel->start_write();
    previous = &c;
    if (c.channel->closed()) continue;
    if (bucket_ != nullptr && bucket_->allowance(proto::kWireCellLen) < proto::kWireCellLen) {
      out_of_tokens = true;
      stop_here(t.index);
      break;
    }
    if (global_budget && *global_budget < proto::kKistCellCost) {
      ++stats_.global_limit_reached;
      stop_here(t.index);
      break;
    }
    std::size_t n = c.channel->stage_one(now);
    if (n == 0) continue;
    c.touched = true;
    if (bucket_ != nullptr) bucket_->consume(n);
    stats_.bytes += n;
    if (n == proto::kWireCellLen) ++stats_.cells;
    c.written += n + proto::kTlsPerCellOverhead;
    if (global_budget) *global_budget -= std::min<std::uint64_t>(*global_budget, n + proto::kTlsPerCellOverhead);
    if (c.channel->mux().empty()) continue;  // it notifies when it has cells again
    if (c.written + proto::kKistCellCost <= c.limit) {
      turns.push({c.channel->mux().next_priority(now).value_or(0.0), seq++, t.index});
    } else {
      ++stats_.limit_reached;
      readd.push_back(t.index);
    }
  }
  for (Candidate& c : cands) {
    if (c.touched) c.channel->start_write();
  }
  run_now_.reset();
  for (std::size_t i : readd) {
    if (!cands[i].channel->closed()) add_pending({cands[i].channel, cands[i].key});
  }
  if (out_of_tokens) return wait_for_tokens();
  // A light run that left nothing waiting does not hold the next (KISTSchedHoldMinCells).
  if (readd.empty() && stats_.cells - cells_before < config_.hold_min_cells) release_run_timer();
  schedule();  // a socket at its limit is asked again at the next run (the timer is armed)
}

// Eq. 2 over the sockets read both now and at the previous run: what their
// peers acknowledged in between is what left their send queues.
void Scheduler::observe_global_drain(std::unordered_map<std::uint64_t, std::uint64_t> acked,
                                     Clock::Monotonic::time_point previous_run, Clock::Monotonic::time_point now) {
  std::uint64_t drained = 0;
  bool any = false;
  for (const auto& [id, bytes] : acked) {
    auto it = acked_at_last_run_.find(id);
    if (it == acked_at_last_run_.end()) continue;
    drained += proto::kist_drained(it->second, bytes);
    any = true;
  }
  if (any) {
    global_.observe(drained, std::chrono::duration_cast<std::chrono::nanoseconds>(now - previous_run),
                    std::chrono::duration_cast<std::chrono::nanoseconds>(config_.run_interval));
  }
  acked_at_last_run_ = std::move(acked);
  stats_.global_limit_bytes = global_.cap().value_or(0);
}

}  // namespace conflux::net
