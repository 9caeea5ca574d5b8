#include "conflux/dirnet/descriptor_publisher.hpp"

#include <algorithm>
#include <utility>


namespace conflux::dirnet {
namespace asio = net::asio;
using net::awaitable;
using net::use_nothrow;

namespace {

constexpr std::string_view kTorUpload = "/tor/";

// What a tor authority said of our descriptor, as a log line: "200 [None]"
// (accepted) or a refusal with its reason (tor puts it in the status line).
std::string tor_answer(const tcp::endpoint& to, const HttpResult<HttpResponse>& res) {
  const std::string where = "authority " + to.address().to_string() + ":" + std::to_string(to.port());
  if (!res) return "Descriptor upload to " + where + " failed: " + std::string(to_string(res.error()));
  return "Descriptor upload to " + where + ": " + std::to_string(res->status) + " " + res->reason;
}

}  // namespace

std::shared_ptr<DescriptorPublisher> DescriptorPublisher::create(asio::any_io_executor ex, const net::Clock& clock,
                                                                 RelayInfo info, PublisherOptions options) {
  return std::make_shared<DescriptorPublisher>(std::move(ex), clock, std::move(info), std::move(options));
}

DescriptorPublisher::DescriptorPublisher(asio::any_io_executor ex, const net::Clock& clock, RelayInfo info,
                                         PublisherOptions options)
    : ex_(ex), clock_(clock), info_(std::move(info)), options_(std::move(options)), timer_(ex) {}

void DescriptorPublisher::start() {
  if (started_) return;
  started_ = true;
  asio::co_spawn(ex_, loop(), asio::detached);
}

void DescriptorPublisher::stop() {
  stopped_ = true;
  ++generation_;
  timer_.cancel();
}

void DescriptorPublisher::update(RelayInfo info) {
  if (info == info_) return;
  info_ = std::move(info);
  republish_now();
}

void DescriptorPublisher::republish_now() {
  // The loop wakes early and publishes; before start() the first round will.
  timer_.cancel();
}

void DescriptorPublisher::note_answer(const tcp::endpoint& to, const HttpResult<HttpResponse>& res) {
  if (accepted_generation_ != generation_) {
    accepted_generation_ = generation_;
    accepted_by_.clear();
  }
  const bool ok = res && res->status == 200;
  if (ok && std::find(accepted_by_.begin(), accepted_by_.end(), to) == accepted_by_.end()) accepted_by_.push_back(to);
  if (!on_answer) return;
  Answer a;
  a.authority = to;
  a.status = res ? res->status : 0;
  a.reason = res ? res->reason : std::string(to_string(res.error()));
  a.all_accepted = ok && accepted_by_.size() == options_.authorities.size();
  on_answer(a);
}

void DescriptorPublisher::rebuild() {
  const std::uint64_t now = clock_.unix_seconds();
  text_ = options_.build_tor ? options_.build_tor(now) : std::string();
  ++generation_;
  if (on_descriptor) on_descriptor(text_);
}

awaitable<void> DescriptorPublisher::loop() {
  auto self = shared_from_this();
  while (!stopped_) {
    rebuild();
    if (!info_.bridge && !text_.empty()) {
      for (const auto& to : options_.authorities) asio::co_spawn(ex_, upload(to, text_, generation_), asio::detached);
    }
    timer_.expires_after(options_.republish);
    co_await timer_.async_wait(use_nothrow);  // cancelled by update()/republish_now()/stop()
  }
}

awaitable<void> DescriptorPublisher::upload(tcp::endpoint to, std::string text, std::uint64_t generation) {
  auto self = shared_from_this();
  auto delay = options_.retry_initial;
  asio::steady_timer retry(ex_);
  while (!stopped_ && generation == generation_) {
    ++attempts_;
    // Named first: GCC 12 mishandles some temporaries inside co_await.
    std::string target(kTorUpload);
    std::string content_type("text/plain");
    auto res = co_await http_post(to, std::move(target), text, options_.http, std::move(content_type));
    if (stopped_) co_return;
    if (on_tor_answer) on_tor_answer(res && res->status == 200, res.has_value(), tor_answer(to, res));
    note_answer(to, res);
    if (res && res->status == 200) {
      ++accepted_;
      co_return;
    }
    if (res && res->status >= 400 && res->status < 500) {
      ++refused_;
      co_return;
    }
    retry.expires_after(delay);
    co_await retry.async_wait(use_nothrow);
    delay = std::min(delay * 2, options_.retry_max);
  }
}

}  // namespace conflux::dirnet
