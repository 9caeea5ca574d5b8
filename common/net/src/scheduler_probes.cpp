// Kernel-queue probes (scheduler_stats.hpp): a sampled write is followed
// until the peer has acknowledged it. Its socket's acknowledged-bytes
// counter is read where a KIST run reads the socket anyway, and otherwise
// at a period that grows with the probe's age (proto/kernel_probe_schedule.hpp),
// so a probe on a long round trip costs a few dozen looks, not one every 0.5 ms.
#include <algorithm>
#include <chrono>

#include "conflux/net/channel.hpp"
#include "conflux/net/scheduler.hpp"
#include "conflux/net/socket_info.hpp"
#include "conflux/proto/kernel_probe_schedule.hpp"

namespace conflux::net {
namespace {

std::chrono::nanoseconds as_ns(Clock::Monotonic::duration d) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(d);
}

std::chrono::nanoseconds poll_period(Clock::Monotonic::duration age) {
  return proto::kernel_probe_poll_period(as_ns(age));
}

}  // namespace

void Scheduler::start_probe(Channel& channel, std::span<const proto::CellSample> cells,
                            Clock::Monotonic::time_point now) {
  if (probes_.size() >= kMaxProbes) {
    ++stats_.kernel_probes_dropped;
    return;
  }
  // Everything in the send queue now, our cells included, must be
  // acknowledged before they have left the kernel.
  const int fd = channel.native_socket();
  auto outq = socket_outq_bytes(fd);
  auto acked = tcp_ack_state(fd);
  if (!outq || !acked) return;
  // Bytes written now cannot be acknowledged sooner than a round trip.
  probes_.push_back({channel.weak_from_this(), channel.id(), now, acked->bytes_acked + *outq, cells.front().seq,
                     cells.back().seq, now + proto::kernel_probe_first_look(acked->min_rtt)});
  arm_probe_timer(now);
}

void Scheduler::arm_probe_timer(Clock::Monotonic::time_point now) {
  if (probes_.empty()) {
    if (probe_timer_armed_) {
      probe_timer_armed_ = false;
      ++probe_timer_generation_;
      probe_timer_.cancel();  // no wake-up for nothing
    }
    return;
  }
  auto due = std::min_element(probes_.begin(), probes_.end(), [](const KernelProbe& a, const KernelProbe& b) {
               return a.next_poll < b.next_poll;
             })->next_poll;
  // An armed timer that fires no later serves: if it is early (a KIST run
  // deferred the probe it was armed for), it finds nothing due and re-arms.
  // Re-arming only to wait longer would cost a timer update per run.
  if (probe_timer_armed_ && probe_timer_due_ <= due) return;
  probe_timer_armed_ = true;
  probe_timer_due_ = due;
  ++probe_timer_generation_;  // a wait this replaces must not touch the new one
  probe_timer_.expires_after(std::max(Clock::Monotonic::duration::zero(), due - now));
  probe_timer_.async_wait([this, alive = std::weak_ptr<int>(alive_),
                           generation = probe_timer_generation_](const boost::system::error_code& ec) {
    if (alive.expired() || generation != probe_timer_generation_) return;
    probe_timer_armed_ = false;
    if (!ec) check_probes();
  });
}

void Scheduler::check_probes() {
  const auto now = clock_.now();
  ++stats_.kernel_probe_wakeups;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < probes_.size(); ++i) {
    KernelProbe& p = probes_[i];
    auto ch = p.channel.lock();
    if (!ch || ch->closed()) continue;
    const auto age = now - p.written;
    const auto period = poll_period(age);
    // Due, or due within half its period: an early look only narrows the
    // error, and one wake-up serves every probe close to its turn.
    bool keep = p.next_poll > now + period / 2;
    if (!keep) {
      ++stats_.kernel_probe_polls;
      auto acked = tcp_bytes_acked(ch->native_socket());
      if (acked && p.settled_by(*acked)) {
        settle_probe(p, now);
      } else if (acked && as_ns(age) > proto::kProbeGiveUp) {
        ++stats_.kernel_probes_given_up;  // a stuck socket
      } else if (acked) {
        p.next_poll = now + period;
        keep = true;
      }
    }
    if (keep && kept != i) probes_[kept] = std::move(p);
    if (keep) ++kept;
  }
  probes_.erase(probes_.begin() + static_cast<std::ptrdiff_t>(kept), probes_.end());
  arm_probe_timer(now);
}

// A KIST run read these sockets' acknowledged bytes at its start (`now`, its
// one clock reading): a probe it sees acknowledged is settled at that time,
// early by at most the run's kernel queries (microseconds, tcp_info_seconds);
// one still waiting counts as looked at, and its next poll moves on.
void Scheduler::look_at_probes_in_run(const std::unordered_map<std::uint64_t, std::uint64_t>& acked,
                                      Clock::Monotonic::time_point now) {
  if (probes_.empty() || acked.empty()) return;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < probes_.size(); ++i) {
    KernelProbe& p = probes_[i];
    auto it = acked.find(p.channel_id);
    bool keep = true;
    if (it != acked.end() && p.settled_by(it->second)) {
      settle_probe(p, now);
      ++stats_.kernel_probes_settled_in_runs;
      keep = false;
    } else if (it != acked.end()) {
      p.next_poll = std::max(p.next_poll, now + poll_period(now - p.written));
    }
    if (keep && kept != i) probes_[kept] = std::move(p);
    if (keep) ++kept;
  }
  probes_.erase(probes_.begin() + static_cast<std::ptrdiff_t>(kept), probes_.end());
  arm_probe_timer(now);
}

void Scheduler::settle_probe(const KernelProbe& p, Clock::Monotonic::time_point observed) {
  const auto ns = as_ns(observed - p.written).count();
  stats_.kernel_queue_seconds.observe(static_cast<double>(std::max<std::int64_t>(0, ns)) * 1e-9);
  if (tracing()) {
    // kernel CHANNEL FIRST_SEQ LAST_SEQ WRITTEN_NS ACKED_NS: the write
    // that carried those sampled cells, until the acknowledgement was seen.
    ++trace_lines_;
    *trace_ << "kernel " << p.channel_id << ' ' << p.first_seq << ' ' << p.last_seq << ' ' << trace_ns(p.written)
            << ' ' << trace_ns(observed) << '\n';
  }
}

}  // namespace conflux::net
