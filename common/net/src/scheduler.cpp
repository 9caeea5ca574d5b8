#include "conflux/net/scheduler.hpp"

#include <algorithm>
#include <chrono>

#include "conflux/net/channel.hpp"
#include "conflux/net/socket_info.hpp"

namespace conflux::net {

SchedulerPolicy choose_scheduler_policy(const SchedulerConfig& config) noexcept {
  for (SchedulerPolicy p : config.preference) {
    switch (p) {
      case SchedulerPolicy::Kist:
        if (kist_supported_at_build() && config.run_interval.count() > 0) return p;
        break;
      case SchedulerPolicy::KistLite:
        if (config.run_interval.count() > 0) return p;
        break;
      case SchedulerPolicy::Vanilla:
        return p;
    }
  }
  return SchedulerPolicy::Vanilla;
}

const char* scheduler_policy_name(SchedulerPolicy p) noexcept {
  switch (p) {
    case SchedulerPolicy::Kist:
      return "KIST";
    case SchedulerPolicy::KistLite:
      return "KISTLite";
    case SchedulerPolicy::Vanilla:
      return "Vanilla";
  }
  return "Vanilla";
}

Scheduler::Scheduler(asio::io_context& io, const Clock& clock, proto::TokenBucket* bucket, SchedulerConfig config)
    : io_(io),
      clock_(clock),
      bucket_(bucket),
      config_(std::move(config)),
      policy_(choose_scheduler_policy(config_)),
      kernel_info_(policy_ == SchedulerPolicy::Kist),
      refill_timer_(io),
      run_timer_(io),
      probe_timer_(io) {
  set_trace_file(config_.trace_path);
}

bool Scheduler::set_trace_file(const std::string& path) {
  trace_.reset();
  trace_lines_ = 0;
  config_.trace_path = path;
  if (path.empty()) return true;
  trace_ = std::make_unique<std::ofstream>(path, std::ios::out | std::ios::trunc);
  if (!*trace_) {
    trace_.reset();
    return false;
  }
  trace_epoch_ = clock_.now();
  trace("# scheduler", static_cast<std::uint64_t>(policy_));
  trace_->flush();  // the file shows at once that tracing started
  return true;
}

void Scheduler::trace(const char* what, std::uint64_t a, std::uint64_t b) {
  if (!trace_ || trace_lines_ >= config_.trace_max_lines) return;
  ++trace_lines_;
  *trace_ << what << ' ' << a << ' ' << b << '\n';
}

std::uint64_t Scheduler::trace_ns(Clock::Monotonic::time_point t) const noexcept {
  return static_cast<std::uint64_t>(
      std::max<std::int64_t>(0, std::chrono::duration_cast<std::chrono::nanoseconds>(t - trace_epoch_).count()));
}

void Scheduler::cells_leaving(Channel& channel, std::span<const proto::CellSample> cells) {
  if (cells.empty()) return;
  // A write a run starts uses the run's time (E4); a write that follows a
  // completed one (Channel::on_write_done) is its own event.
  const auto now = run_now_ ? *run_now_ : clock_.now();
  for (const proto::CellSample& c : cells) {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now - c.queued).count();
    stats_.relay_queue_seconds.observe(static_cast<double>(ns) * 1e-9);
    if (tracing()) {
      // cell CHANNEL SEQ CIRCUIT QUEUED_NS LEFT_NS: entering the circuit
      // queue, and handed to the kernel (SchedulerTraceFile, CONFIG.md).
      ++trace_lines_;
      *trace_ << "cell " << channel.id() << ' ' << c.seq << ' ' << c.circ.value() << ' ' << trace_ns(c.queued) << ' '
              << trace_ns(now) << '\n';
    }
  }
  start_probe(channel, cells, now);
}

void Scheduler::notify(const std::shared_ptr<Channel>& channel) {
  // Told once per cell queued: a channel already pending costs one lookup.
  if (!pending_set_.contains(channel.get())) add_pending({channel, channel.get()});
  schedule();
}

void Scheduler::add_pending(Pending p) {
  if (pending_set_.insert(p.key).second) pending_.push_back(std::move(p));
}

void Scheduler::schedule() {
  // KIST runs at most once per interval: every KIST run arms the interval
  // timer as it starts, so work that arrives while it is armed waits for it
  // and cells from many channels meet in one decision. With no timer armed
  // (always so for Vanilla) a whole interval has passed: run now.
  if (run_posted_ || run_timer_armed_ || waiting_for_tokens_ || pending_.empty()) return;
  post_run();
}

void Scheduler::arm_run_timer() {
  if (run_timer_armed_) return;
  run_timer_armed_ = true;
  run_timer_.expires_after(config_.run_interval);
  run_timer_.async_wait([this, alive = std::weak_ptr<int>(alive_),
                         generation = run_timer_generation_](const boost::system::error_code& ec) {
    if (alive.expired() || generation != run_timer_generation_) return;
    run_timer_armed_ = false;
    if (!ec) schedule();
  });
}

void Scheduler::release_run_timer() {
  if (!run_timer_armed_) return;
  run_timer_armed_ = false;
  ++run_timer_generation_;  // its wait may already be queued: it must not touch the next timer
  run_timer_.cancel();
  ++stats_.kist_runs_released;
}

void Scheduler::post_run() {
  if (run_posted_) return;
  run_posted_ = true;
  asio::post(io_, [this, alive = std::weak_ptr<int>(alive_)] {
    if (alive.expired()) return;
    run_posted_ = false;
    if (policy_ == SchedulerPolicy::Vanilla) {
      run_vanilla();
    } else {
      run_kist();
    }
  });
}

void Scheduler::wait_for_tokens() {
  if (waiting_for_tokens_ || bucket_ == nullptr) return;
  waiting_for_tokens_ = true;
  ++stats_.token_stalls;
  refill_timer_.expires_after(bucket_->wait_for(proto::kWireCellLen));
  refill_timer_.async_wait([this, alive = std::weak_ptr<int>(alive_)](const boost::system::error_code& ec) {
    if (alive.expired()) return;
    waiting_for_tokens_ = false;
    if (!ec) schedule();
  });
}

void Scheduler::run_vanilla() {
  ++stats_.runs;
  const auto now = clock_.now();  // the run's one clock read (E4): EWMA inside each mux, sampled cells
  run_now_ = now;
  if (bucket_ != nullptr) bucket_->refill(now);

  // Channels served this run go behind the ones that were skipped (mid-write
  // or no tokens left), so a backlogged channel cannot starve the others.
  std::deque<Pending> skipped;
  std::deque<Pending> served;
  while (!pending_.empty()) {
    Pending p = pending_.front();
    pending_.pop_front();
    auto ch = p.channel.lock();
    if (!ch || ch->closed()) {
      pending_set_.erase(p.key);
      continue;
    }
    if (ch->writing()) {
      // Its write completion will notify again; keep the slot so no wakeup is lost.
      skipped.push_back(p);
      continue;
    }
    std::size_t budget = bucket_ != nullptr ? static_cast<std::size_t>(bucket_->allowance(SIZE_MAX)) : SIZE_MAX;
    if (budget < proto::kWireCellLen) {
      skipped.push_back(p);
      continue;
    }
    std::size_t n = ch->flush_from_mux(budget, now);
    if (bucket_ != nullptr) bucket_->consume(n);
    stats_.bytes += n;
    stats_.cells += n / proto::kWireCellLen;
    if (!ch->mux().empty()) {
      served.push_back(p);
    } else {
      pending_set_.erase(p.key);
    }
  }
  pending_ = std::move(skipped);
  pending_.insert(pending_.end(), served.begin(), served.end());
  run_now_.reset();

  // Channels still pending are either mid-write (they will notify) or out of
  // tokens: in that case wait for the bucket instead of spinning.
  if (bucket_ != nullptr && !pending_.empty() && bucket_->allowance(proto::kWireCellLen) < proto::kWireCellLen) {
    wait_for_tokens();
  }
}

}  // namespace conflux::net
