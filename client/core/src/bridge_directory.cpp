#include "conflux/client/bridge_directory.hpp"

#include <algorithm>

#include "conflux/client/begin_dir.hpp"
#include "conflux/dir/tor_server_descriptor.hpp"

namespace conflux::client {
namespace {

// Where a tor bridge serves its own descriptor (tor's dirclient asks
// "/tor/server/authority" of a bridge, and the bridge answers with its own).
constexpr std::string_view kTorBridgeDescriptorPath = "/tor/server/authority";

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

void BridgeDirectory::probe(ProbeDone done) {
  for (std::size_t i = 0; i < bridges_.size(); ++i) net::asio::co_spawn(io_, probe_one(i, done), net::asio::detached);
}

net::awaitable<void> BridgeDirectory::probe_one(std::size_t index, ProbeDone done) {
  std::weak_ptr<int> life = life_;
  const auto since = clock_.now();
  auto error = co_await fetch_once(index);
  if (life.expired() || stopped_) co_return;
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(clock_.now() - since);
  const auto& b = bridges_[index];
  if (!error && b.descriptor)
    net::emit(log_, net::LogLevel::Notice, "Bridge " + b.descriptor->nickname + " (" + endpoint_text(b.target.at) +
                                               "): tested, descriptor fetched in " + std::to_string(took.count()) + " ms.");
  if (!error && on_change) on_change();  // a bridge that was down may be usable again
  done(b.target, took, error);
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
  // The Ed25519 identity is all zero until the first descriptor gave it.
  // Named, not temporaries in the co_await: GCC 12 destroys a temporary
  // class argument of a coroutine call twice (ASan: bad-free).
  DirRelay relay{target.at, target.identity, target.rsa, "bridge"};
  std::string path(kTorBridgeDescriptorPath);
  const auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(options_.fetch_timeout);
  auto got = co_await begin_dir_get(links_, clock_, relay, path, dir::kMaxTorServerDescriptorSize, timeout);
  if (!got) co_return got.error();
  if (got->status != 200) co_return "HTTP status " + std::to_string(got->status);
  auto d = dir::parse_tor_server_descriptor(got->body, clock_.unix_seconds());
  if (!d)
    co_return "its descriptor does not verify (" + std::string(dir::to_string(d.error().code)) +
        (d.error().field.empty() ? "" : ": " + std::string(d.error().field)) + ")";
  if (d->rsa_identity != target.rsa) co_return std::string("its descriptor is not the bridge's of the Bridge line");
  bridges_[index].target.identity = d->ed25519_identity;
  bridges_[index].descriptor = std::move(*d);
  co_return std::nullopt;
}

}  // namespace conflux::client
