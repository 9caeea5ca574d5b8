#pragma once
// The socket scheduler: decides which channel writes, when, and how much.
// Channels with queued cells become pending; one run (posted after the
// current event, so a burst of cells becomes one decision) gives each
// pending channel that is not mid-write a batch, within the bandwidth
// bucket. KIST (issue 6) replaces the batch size with a kernel-informed limit.
#include <deque>
#include <memory>
#include <unordered_set>

#include "conflux/net/asio.hpp"
#include "conflux/net/clock.hpp"
#include "conflux/proto/token_bucket.hpp"

namespace conflux::net {

class Channel;

class Scheduler {
 public:
  // `bucket` may be null (no BandwidthRate); it must outlive the scheduler.
  Scheduler(asio::io_context& io, const Clock& clock, proto::TokenBucket* bucket);

  // The channel has cells queued, or finished a write and may have more.
  void notify(const std::shared_ptr<Channel>& channel);

  [[nodiscard]] std::uint64_t runs() const noexcept { return runs_; }
  [[nodiscard]] std::uint64_t bytes_scheduled() const noexcept { return bytes_; }

 private:
  void post_run();
  void run();

  // Posted runs and the refill timer hold a weak reference to this, so a
  // scheduler destroyed while the io_context still runs is never touched.
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
  asio::io_context& io_;
  const Clock& clock_;
  proto::TokenBucket* bucket_;
  asio::steady_timer refill_timer_;
  struct Pending {
    std::weak_ptr<Channel> channel;
    const Channel* key;  // identity for de-duplication, never dereferenced
  };
  std::deque<Pending> pending_;
  std::unordered_set<const Channel*> pending_set_;
  bool run_posted_ = false;
  bool waiting_for_tokens_ = false;
  std::uint64_t runs_ = 0;
  std::uint64_t bytes_ = 0;
};

}  // namespace conflux::net
