#include "conflux/net/scheduler.hpp"

#include "conflux/net/channel.hpp"

namespace conflux::net {

Scheduler::Scheduler(asio::io_context& io, const Clock& clock, proto::TokenBucket* bucket)
    : io_(io), clock_(clock), bucket_(bucket), refill_timer_(io) {}

void Scheduler::notify(const std::shared_ptr<Channel>& channel) {
  if (pending_set_.insert(channel.get()).second) pending_.push_back({channel, channel.get()});
  post_run();
}

void Scheduler::post_run() {
  if (run_posted_ || waiting_for_tokens_) return;
  run_posted_ = true;
  asio::post(io_, [this, alive = std::weak_ptr<int>(alive_)] {
    if (!alive.expired()) run();
  });
}

void Scheduler::run() {
  run_posted_ = false;
  ++runs_;
  if (bucket_ != nullptr) bucket_->refill(clock_.now());

  std::deque<Pending> still_pending;
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
      still_pending.push_back(p);
      continue;
    }
    std::size_t budget = bucket_ != nullptr ? static_cast<std::size_t>(bucket_->allowance(SIZE_MAX)) : SIZE_MAX;
    if (budget < proto::kWireCellLen) {
      still_pending.push_back(p);
      continue;
    }
    std::size_t n = ch->flush_from_mux(budget);
    if (bucket_ != nullptr) bucket_->consume(n);
    bytes_ += n;
    if (!ch->mux().empty()) {
      still_pending.push_back(p);
    } else {
      pending_set_.erase(p.key);
    }
  }
  pending_ = std::move(still_pending);

  // Channels still pending are either mid-write (they will notify) or out of
  // tokens: in that case wait for the bucket instead of spinning.
  bool need_tokens = bucket_ != nullptr && !pending_.empty() && bucket_->allowance(proto::kWireCellLen) < proto::kWireCellLen;
  if (need_tokens && !waiting_for_tokens_) {
    waiting_for_tokens_ = true;
    refill_timer_.expires_after(bucket_->wait_for(proto::kWireCellLen));
    refill_timer_.async_wait([this, alive = std::weak_ptr<int>(alive_)](const boost::system::error_code& ec) {
      if (alive.expired()) return;
      waiting_for_tokens_ = false;
      if (!ec) post_run();
    });
  }
}

}  // namespace conflux::net
