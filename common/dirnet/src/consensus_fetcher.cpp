#include "conflux/dirnet/consensus_fetcher.hpp"

#include <algorithm>
#include <utility>

#include "conflux/crypto/random.hpp"
#include "conflux/dirnet/tor_consensus_fetch.hpp"

namespace conflux::dirnet {
namespace asio = net::asio;
using net::awaitable;
using net::use_nothrow;

void keep_most_telling(FetchErrc& worst, FetchErrc e) noexcept {
  auto rank = [](FetchErrc x) {
    switch (x) {
      case FetchErrc::Invalid: return 4;
      case FetchErrc::NotNewer: return 3;
      case FetchErrc::NotFound: return 2;
      case FetchErrc::Unreachable: return 1;
      case FetchErrc::NoSource: return 0;
    }
    return 0;
  };
  if (rank(e) > rank(worst)) worst = e;
}

std::string_view to_string(FetchErrc e) noexcept {
  switch (e) {
    case FetchErrc::NoSource: return "no source";
    case FetchErrc::Unreachable: return "unreachable";
    case FetchErrc::NotFound: return "not found";
    case FetchErrc::Invalid: return "invalid document";
    case FetchErrc::NotNewer: return "not newer";
  }
  return "unknown";
}

std::shared_ptr<ConsensusFetcher> ConsensusFetcher::create(asio::any_io_executor ex, const net::Clock& clock,
                                                           ConsensusQuery query, FetcherOptions options) {
  return std::make_shared<ConsensusFetcher>(std::move(ex), clock, std::move(query), options);
}

ConsensusFetcher::ConsensusFetcher(asio::any_io_executor ex, const net::Clock& clock, ConsensusQuery query,
                                   FetcherOptions options)
    : clock_(clock),
      query_(std::move(query)),
      options_(options),
      timer_(std::move(ex)),
      tor_cache_(std::make_shared<TorDirCache>()) {}

void ConsensusFetcher::start() { asio::co_spawn(timer_.get_executor(), run(), asio::detached); }

void ConsensusFetcher::stop() {
  stopped_ = true;
  timer_.cancel();
}

awaitable<void> ConsensusFetcher::run() {
  auto self = shared_from_this();
  auto backoff = options_.retry_initial;
  while (!stopped_) {
    const std::uint64_t held = consensus_ ? consensus_->body.valid_after : 0;
    Result<dir::Consensus, FetchErrc> got = co_await fetch_tor_consensus(query_, clock_, held, *tor_cache_);
    if (stopped_) co_return;
    std::chrono::milliseconds wait = backoff;
    if (got) {
      consensus_ = std::move(*got);
      ++fetched_;
      backoff = options_.retry_initial;
      if (on_consensus) on_consensus(*consensus_);
      if (query_.fetch_ns) co_await follow_ns(consensus_->body.valid_after);
      if (stopped_) co_return;
      const auto& b = consensus_->body;
      const std::uint64_t now = clock_.unix_seconds();
      const std::uint64_t interval = b.fresh_until - b.valid_after;
      const auto jitter = std::chrono::milliseconds(crypto::random_uniform(interval * 1000 / 8 + 1));
      const auto until_fresh = std::chrono::seconds(b.fresh_until > now ? b.fresh_until - now : 0);
      wait = std::chrono::duration_cast<std::chrono::milliseconds>(until_fresh) + options_.after_fresh + jitter;
    } else {
      ++failed_;
      backoff = std::min(backoff * 2, options_.retry_max);
      if (on_failure) on_failure(got.error());
    }
    timer_.expires_after(wait);
    co_await timer_.async_wait(use_nothrow);
  }
}

// The ns flavour follows each microdesc consensus. Authorities publish both
// together (ours sign them in one round), so a source that just served the
// microdesc one may lack the ns one for a moment: a few tries, 2 s apart;
// after that the held one stays served until the next round.
awaitable<void> ConsensusFetcher::follow_ns(std::uint64_t valid_after) {
  constexpr int kTries = 5;
  for (int attempt = 0; attempt < kTries && !stopped_; ++attempt) {
    if (attempt > 0) {
      timer_.expires_after(std::chrono::seconds(2));
      co_await timer_.async_wait(use_nothrow);
      if (stopped_) co_return;
    }
    auto got = co_await fetch_tor_ns(query_, clock_, valid_after, *tor_cache_);
    if (stopped_) co_return;
    if (!got) continue;
    if (*got != ns_valid_after_) {
      ns_valid_after_ = *got;
      if (on_ns) on_ns();
    }
    co_return;
  }
}

}  // namespace conflux::dirnet
