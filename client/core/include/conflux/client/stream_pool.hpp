#pragma once
// What the SOCKS session asks of whichever pool carries its streams
// (CircuitPool for single circuits, ConfluxPool for Conflux sets).
#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "conflux/client/stream_carrier.hpp"
#include "conflux/net/asio.hpp"

namespace conflux::client {

// What a stream needs of its carrier.
struct StreamNeeds {
  std::optional<std::uint16_t> port;      // nullopt: any exit (RESOLVE)
  std::string isolation;                  // streams with different keys never share a carrier
  std::set<RelayIdentity> avoid_exits;    // exits that refused this stream already
  // PerClientGuards: the stream's client; only carriers built through that
  // client's guards serve it. Empty: the process's guards.
  std::string guard_client;
};

class StreamPool {
 public:
  using Clock = std::chrono::steady_clock;
  virtual ~StreamPool() = default;
  // An open carrier for `needs`, launching builds as needed; null at the
  // deadline, or at once when no exit allows the port (`no_exit` set then).
  // The pointer is good until the caller's next suspension: attach at once.
  virtual net::awaitable<StreamCarrier*> acquire(StreamNeeds needs, Clock::time_point deadline,
                                                 bool* no_exit = nullptr) = 0;
  // Marks the carrier used by a stream with this isolation key.
  virtual void claim(StreamCarrier& c, const std::string& isolation) = 0;
  // A stream left the carrier: a dirty carrier without streams may close.
  virtual void stream_done(StreamCarrier& c) = 0;
  // The carrier takes no new streams (its exit did not answer one); it
  // closes when its last stream ends.
  virtual void retire(StreamCarrier& c) = 0;
};

}  // namespace conflux::client
