#pragma once
// A relay's descriptor, tor's server descriptor: built by the relay
// (PublisherOptions::build), and uploaded to every authority in its
// DirAuthority lines (POST /tor/, as tor's relays upload), at start, every
// `republish` and whenever what it says changes, each upload retried with
// exponential backoff until it lands (a 4xx is final for that descriptor:
// sending the same bytes again would get the same answer). A bridge
// uploads nowhere: it only keeps a fresh descriptor, which the relay serves
// at /tor/server/authority (tor's path for a relay's own descriptor).
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "conflux/crypto/ed25519.hpp"
#include "conflux/dir/fields.hpp"
#include "conflux/dirnet/http_client.hpp"
#include "conflux/net/asio.hpp"
#include "conflux/net/clock.hpp"

namespace conflux::dirnet {

// A relay's "bandwidth" line (tor's BandwidthRate, BandwidthBurst and the
// highest sustained throughput it observed), bytes/s.
struct Bandwidth {
  std::uint64_t rate = 0;
  std::uint64_t burst = 0;
  std::uint64_t observed = 0;
  friend bool operator==(const Bandwidth&, const Bandwidth&) = default;
};

// What a relay says about itself besides its keys (from RelayOptions).
struct RelayInfo {
  std::string nickname;
  dir::Ipv4 ipv4{};
  std::optional<dir::Ipv6> ipv6;
  std::uint16_t or_port = 0;
  std::uint16_t dir_port = 0;
  Bandwidth bandwidth;
  std::string exit_policy = "reject 1-65535";  // summary (proto's exit policy summary)
  std::vector<crypto::Ed25519Public> family;
  std::string version;                          // platform becomes "conflux <version>"
  // Link 4-5, Ed25519 link authentication (AUTH0003), relay cells with
  // ntor (2) and ntor-v3 (4), authenticated SENDMEs (FlowCtrl 1) and
  // congestion control (2), Conflux sets ending here (every relay runs the
  // join point).
  std::string protocols = "Link=4-5 LinkAuth=3 Relay=2-4 FlowCtrl=1-2 Conflux=1";
  bool bridge = false;
  friend bool operator==(const RelayInfo&, const RelayInfo&) = default;
};

struct PublisherOptions {
  std::vector<tcp::endpoint> authorities;  // DirAuthority DirPorts
  std::chrono::seconds republish{3600};
  // Required: each descriptor is build_tor(now), tor's server descriptor,
  // POSTed to /tor/ as text/plain as tor's relays upload (dir-spec
  // "Uploading server descriptors"); on_tor_answer hears each answer with
  // tor's reason. (Our JSON descriptor retired, issue 15.)
  std::function<std::string(std::uint64_t now)> build_tor;
  std::chrono::milliseconds retry_initial{1000};
  std::chrono::milliseconds retry_max{60000};
  HttpLimits http{std::chrono::milliseconds(10000), 8192, 4096};
};

class DescriptorPublisher : public std::enable_shared_from_this<DescriptorPublisher> {
 public:
  // `clock` must outlive the publisher's coroutines.
  static std::shared_ptr<DescriptorPublisher> create(net::asio::any_io_executor ex, const net::Clock& clock,
                                                     RelayInfo info, PublisherOptions options);
  DescriptorPublisher(net::asio::any_io_executor ex, const net::Clock& clock, RelayInfo info,
                      PublisherOptions options);

  void start();
  void stop();
  // New facts (address, bandwidth, policy...): a new descriptor now if they differ.
  void update(RelayInfo info);
  // Re-sign and upload now (e.g. after the keys were renewed).
  void republish_now();

  // The current descriptor (build_tor's); empty before start().
  [[nodiscard]] const std::string& descriptor_text() const noexcept { return text_; }
  std::function<void(const std::string&)> on_descriptor;
  // Each answer of an authority: accepted (200), answered
  // at all, and a line saying which authority said what (tor's reason).
  std::function<void(bool accepted, bool answered, const std::string& line)> on_tor_answer;
  // Each authority's answer to an upload (the relay's
  // STATUS_SERVER events, as tor's dirclient.c sends them): its HTTP status
  // (0: no answer) and reason phrase, and whether every authority has now
  // accepted the current descriptor (tor's GOOD_SERVER_DESCRIPTOR).
  struct Answer {
    tcp::endpoint authority;
    unsigned status = 0;
    std::string reason;
    bool all_accepted = false;
  };
  std::function<void(const Answer&)> on_answer;

  [[nodiscard]] std::uint64_t uploads_accepted() const noexcept { return accepted_; }
  [[nodiscard]] std::uint64_t uploads_refused() const noexcept { return refused_; }
  [[nodiscard]] std::uint64_t upload_attempts() const noexcept { return attempts_; }

 private:
  net::awaitable<void> loop();
  net::awaitable<void> upload(tcp::endpoint to, std::string text, std::uint64_t generation);
  void rebuild();
  void note_answer(const tcp::endpoint& to, const HttpResult<HttpResponse>& res);

  net::asio::any_io_executor ex_;
  const net::Clock& clock_;
  RelayInfo info_;
  PublisherOptions options_;
  net::asio::steady_timer timer_;
  std::string text_;
  std::uint64_t generation_ = 0;  // uploads of an older descriptor stop retrying
  std::uint64_t accepted_ = 0, refused_ = 0, attempts_ = 0;
  std::uint64_t accepted_generation_ = 0;     // the descriptor accepted_by_ counts for
  std::vector<tcp::endpoint> accepted_by_;    // the authorities that took it
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace conflux::dirnet
