#include "conflux/client/bridge_directory.hpp"

#include <algorithm>

#include "conflux/client/begin_dir.hpp"
#include "conflux/dir/paths.hpp"

namespace conflux::client {
namespace {

std::string endpoint_text(const net::tcp::endpoint& e) {
  return e.address().to_string() + ":" + std::to_string(e.port());
}

}  // namespace

BridgeDirectory::BridgeDirectory(net::asio::io_context& io, LinkPool& links, const net::Clock& clock,
                                 std::vector<BridgeTarget> bridges, Options options, net::LogSink log)
    : io_(io), links_(links), clock_(clock), options_(options), log_(std::move(log)) {
  for (auto& b : bridges) bridges_.push_back(BridgeStatus{b, std::nullopt, "not tried yet", 0});
}

BridgeDirectory::~BridgeDirectory() { stop(); }

void BridgeDirectory::start() {
  for (std::size_t i = 0; i < bridges_.size(); ++i) net::asio::co_spawn(io_, keep_fresh(i), net::asio::detached);
}

void BridgeDirectory::stop() { stopped_ = true; }

std::size_t BridgeDirectory::usable() const {
  return static_cast<std::size_t>(
      std::count_if(bridges_.begin(), bridges_.end(), [](const BridgeStatus& b) { return b.descriptor.has_value(); }));
}

net::awaitable<void> BridgeDirectory::keep_fresh(std::size_t index) {
  std::weak_ptr<int> life = life_;
  auto backoff = options_.retry_initial;
  net::asio::steady_timer timer(io_);
  while (!life.expired() && !stopped_) {
    auto error = co_await fetch_once(index);
    if (life.expired() || stopped_) co_return;
    auto& b = bridges_[index];
    ++b.attempts;
    std::chrono::seconds wait = backoff;
    if (!error) {
      b.last_error.clear();
      backoff = options_.retry_initial;
      wait = options_.refresh;
      net::emit(log_, net::LogLevel::Notice, "Bridge " + b.descriptor->nickname + " (" + endpoint_text(b.target.at) +
                                                 "): descriptor fetched and verified.");
      if (on_change) on_change();
    } else {
      b.last_error = *error;
      net::emit(log_, net::LogLevel::Info, "Bridge " + endpoint_text(b.target.at) + ": " + *error);
      backoff = std::min(backoff * 2, options_.retry_max);
      if (on_change) on_change();
    }
    timer.expires_after(wait);
    (void)co_await timer.async_wait(net::use_nothrow);
  }
}

net::awaitable<std::optional<std::string>> BridgeDirectory::fetch_once(std::size_t index) {
  const BridgeTarget target = bridges_[index].target;
  // Named, not temporaries in the co_await: GCC 12 destroys a temporary
  // class argument of a coroutine call twice (ASan: bad-free).
  DirRelay relay{target.at, target.identity, "bridge"};
  std::string path(dir::kSelfDescriptor);
  const auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(options_.fetch_timeout);
  auto got = co_await begin_dir_get(links_, clock_, relay, path, dir::kMaxDescriptorSize, timeout);
  if (!got) co_return got.error();
  if (got->status != 200) co_return "HTTP status " + std::to_string(got->status);
  auto d = dir::parse_and_verify_descriptor(got->body, clock_.unix_seconds());
  if (!d) co_return std::string("its descriptor does not verify");
  if (!d->is_bridge || d->identity != target.identity)
    co_return std::string("its descriptor is not the bridge's of the Bridge line");
  bridges_[index].descriptor = std::move(*d);
  co_return std::nullopt;
}

}  // namespace conflux::client
