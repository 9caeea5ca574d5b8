#pragma once
// What the peer's stream windows prove it has delivered, for the retransmit
// history of a side that sends no DATA.
//
// Circuit SENDMEs acknowledge DATA cells only. The client of a download
// sends nothing but stream SENDMEs (sequenced through the set), which no
// SENDME ever acknowledges: kept until a later DATA cell is acknowledged,
// they would pile up until the history hits its cap and gives the leg up,
// and the next leg death would then close the set (ResendUnavailable).
//
// The peer's stream windows say more. It may send a stream's DATA only
// within its package window: 500 cells, plus 50 for each of our stream
// SENDMEs it has processed (tor-spec 7.4). So once it has sent us
// 500 + 50 (k - 1) + 1 DATA cells on a stream, it has processed our k-th
// stream SENDME on that stream, and since a set delivers in sequence order,
// everything we numbered up to that SENDME. A peer that overruns its window
// only makes us forget cells it may later need resent: its loss.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>

#include "conflux/cell/relay_command.hpp"
#include "conflux/proto/conflux_types.hpp"

namespace conflux::proto {

class DeliveryProof {
 public:
  // Stream SENDMEs remembered per stream; a correct peer leaves about ten
  // unproven (its 500-cell window), the oldest are forgotten beyond this.
  static constexpr std::size_t kMaxPendingPerStream = 64;
  // Streams tracked; beyond this a new stream is not tracked.
  static constexpr std::size_t kMaxStreams = 4096;

  // We numbered a multiplexed message of `stream` as `seq`.
  void on_sent(StreamId stream, cell::RelayCommand command, SeqAbs seq);
  // The peer's multiplexed message of `stream` was delivered to us in
  // order. Returns a number the peer has now proven to have delivered, if
  // this message proved a new one.
  std::optional<SeqAbs> on_delivered(StreamId stream, cell::RelayCommand command);

  [[nodiscard]] std::size_t streams() const noexcept { return streams_.size(); }

 private:
  struct Stream {
    std::uint64_t sendmes_sent = 0;
    struct Pending {
      std::uint64_t ordinal = 0;
      SeqAbs seq{};
    };
    std::deque<Pending> pending;
    std::uint64_t data_in = 0;
  };
  std::map<std::uint16_t, Stream> streams_;
};

}  // namespace conflux::proto
