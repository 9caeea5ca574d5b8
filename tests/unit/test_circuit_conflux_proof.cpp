// What the peer's stream windows prove it delivered (DeliveryProof), and a
// long download over a two-way set in which the client sends only stream
// SENDMEs: its history stays bounded and a leg dying after the first
// 150 000 cells still has everything to resend.
#include <catch2/catch.hpp>

#include <deque>
#include <map>

#include "conflux/proto/conflux_delivery_proof.hpp"
#include "conflux/proto/conflux_set.hpp"

using namespace conflux;
using namespace conflux::proto;
using cell::RelayCommand;

TEST_CASE("delivery proof: the peer's 501st DATA cell proves our first stream SENDME, every 50 more the next",
          "[conflux]") {
  DeliveryProof p;
  const StreamId s{7};
  p.on_sent(s, RelayCommand::Sendme, SeqAbs{10});
  p.on_sent(s, RelayCommand::Sendme, SeqAbs{20});
  p.on_sent(s, RelayCommand::Data, SeqAbs{21});  // our DATA proves nothing by itself
  p.on_sent(s, RelayCommand::Sendme, SeqAbs{30});
  for (int i = 0; i < 500; ++i) REQUIRE_FALSE(p.on_delivered(s, RelayCommand::Data));
  CHECK(p.on_delivered(s, RelayCommand::Data) == std::optional<SeqAbs>(SeqAbs{10}));  // 501
  for (int i = 502; i <= 550; ++i) REQUIRE_FALSE(p.on_delivered(s, RelayCommand::Data));
  CHECK(p.on_delivered(s, RelayCommand::Data) == std::optional<SeqAbs>(SeqAbs{20}));  // 551
  // Other streams, stream 0 and non-DATA messages count for nothing.
  for (int i = 0; i < 600; ++i) {
    REQUIRE_FALSE(p.on_delivered(StreamId{8}, RelayCommand::Data));
    REQUIRE_FALSE(p.on_delivered(StreamId{0}, RelayCommand::Data));
    REQUIRE_FALSE(p.on_delivered(s, RelayCommand::Connected));
  }
  for (int i = 552; i <= 600; ++i) REQUIRE_FALSE(p.on_delivered(s, RelayCommand::Data));
  CHECK(p.on_delivered(s, RelayCommand::Data) == std::optional<SeqAbs>(SeqAbs{30}));  // 601
  // END starts the stream ID afresh.
  p.on_sent(s, RelayCommand::Sendme, SeqAbs{40});
  CHECK_FALSE(p.on_delivered(s, RelayCommand::End));
  for (int i = 0; i < 1000; ++i) REQUIRE_FALSE(p.on_delivered(s, RelayCommand::Data));
  CHECK(p.streams() == 2);
}

TEST_CASE("delivery proof: remembered SENDMEs and streams are bounded", "[conflux]") {
  DeliveryProof p;
  for (std::uint64_t i = 1; i <= 1000; ++i) p.on_sent(StreamId{1}, RelayCommand::Sendme, SeqAbs{i});
  // Only the last 64 are remembered: the first proof is the 937th SENDME.
  std::optional<SeqAbs> first;
  for (int i = 0; i < 500 + 50 * 1000 && !first; ++i) first = p.on_delivered(StreamId{1}, RelayCommand::Data);
  CHECK(first == std::optional<SeqAbs>(SeqAbs{1000 - DeliveryProof::kMaxPendingPerStream + 1}));
  for (std::uint16_t s = 1; s <= 5000; ++s) p.on_sent(StreamId{s}, RelayCommand::Sendme, SeqAbs{s});
  CHECK(p.streams() == DeliveryProof::kMaxStreams);
}

namespace {

// An exit set sending a download and a client set answering with stream
// SENDMEs, over legs that deliver at once (in order per leg), circuit
// SENDMEs every 100 DATA cells each way, and the exit's stream window.
struct Duplex {
  ReorderBudget eb, cb;
  ConfluxSet exit{SetId{1}, eb}, client{SetId{2}, cb};
  const StreamId stream{1};
  std::int64_t exit_window = 500;  // the exit's package window for the stream
  std::uint64_t client_data = 0;   // DATA delivered to the client's stream
  std::map<std::uint32_t, std::uint64_t> data_at_client, data_at_exit;
  std::deque<LegCell> to_client, to_exit;
  ConfluxTime now = ConfluxTime{} + std::chrono::hours(1);

  void link(std::uint32_t leg) {
    const auto c = client.advertise();
    const auto e = exit.advertise();
    REQUIRE(exit.add_leg(LegId{leg}, e, c, std::chrono::milliseconds(1), now));
    REQUIRE(client.add_leg(LegId{leg}, c, e, std::chrono::milliseconds(1), now));
  }
  void settle() {
    while (!to_client.empty() || !to_exit.empty()) {
      while (!to_client.empty()) {
        LegCell c = std::move(to_client.front());
        to_client.pop_front();
        if (!client.has_leg(c.leg)) continue;
        if (auto* sw = std::get_if<cell::ConfluxSwitchMsg>(&c.msg)) {
          REQUIRE(client.on_switch(c.leg, *sw));
          continue;
        }
        const bool data = std::holds_alternative<cell::DataMsg>(c.msg);
        auto out = client.on_cell(c.leg, c.stream, c.msg, now);
        REQUIRE(out);
        if (data && ++data_at_client[c.leg.value()] % 100 == 0) {
          REQUIRE(exit.on_leg_sendme(c.leg, now));
          for (auto& f : exit.flush(now)) to_client.push_back(std::move(f));
        }
        for (auto& m : *out) {
          if (!std::holds_alternative<cell::DataMsg>(m.msg)) continue;
          if (++client_data % 50 != 0) continue;
          auto sent = client.send(stream, cell::SendmeMsg{}, now);
          REQUIRE(sent);
          for (auto& s : *sent) to_exit.push_back(std::move(s));
        }
      }
      while (!to_exit.empty()) {
        LegCell c = std::move(to_exit.front());
        to_exit.pop_front();
        if (!exit.has_leg(c.leg)) continue;
        if (auto* sw = std::get_if<cell::ConfluxSwitchMsg>(&c.msg)) {
          REQUIRE(exit.on_switch(c.leg, *sw));
          continue;
        }
        auto out = exit.on_cell(c.leg, c.stream, c.msg, now);
        REQUIRE(out);
        for (auto& m : *out)
          if (std::holds_alternative<cell::SendmeMsg>(m.msg)) exit_window += 50;
      }
    }
  }
  // The exit sends while its stream window and the set allow.
  std::uint64_t download(std::uint64_t cells) {
    std::uint64_t sent = 0;
    for (int guard = 0; sent < cells && guard < 10'000'000; ++guard) {
      if (exit_window > 0 && exit.can_send_data(now)) {
        auto out = exit.send(stream, cell::DataMsg{std::vector<std::uint8_t>(498, 0x5A)}, now);
        REQUIRE(out);
        for (auto& c : *out) to_client.push_back(std::move(c));
        --exit_window;
        ++sent;
        if (sent % 64 != 0) continue;
      }
      now += std::chrono::milliseconds(1);
      settle();
    }
    settle();
    return sent;
  }
};

}  // namespace

TEST_CASE("conflux set: a client sending only stream SENDMEs keeps a bounded history, can resend after 150 000 cells",
          "[conflux]") {
  Duplex d;
  d.link(1);
  d.link(2);
  REQUIRE(d.download(150'000) == 150'000);
  CHECK(d.client_data == 150'000);
  // 3000 stream SENDMEs went out, more than a leg's history holds; the
  // exit's window proves all but the last ten or so delivered.
  CHECK(d.client.stats().cells_sent == 3000);
  CHECK(d.client.retained_bytes() < 20 * (8 + RetransmitBuffer::kEntryOverhead));
  // A leg dies; the other is relinked: the client has what it needs.
  d.exit.leg_closed(LegId{1});
  d.client.leg_closed(LegId{1});
  const auto c = d.client.advertise();
  REQUIRE(d.client.begin_relink(LegId{2}));
  const auto e = d.exit.advertise();
  REQUIRE(d.exit.relink_leg(LegId{2}, e, c, RttDuration{0}, d.now));
  REQUIRE(d.client.relink_leg(LegId{2}, c, e, RttDuration{0}, d.now));
  for (auto& f : d.exit.flush(d.now)) d.to_client.push_back(std::move(f));
  for (auto& f : d.client.flush(d.now)) d.to_exit.push_back(std::move(f));
  d.settle();
  REQUIRE(d.download(10'000) == 10'000);
  CHECK(d.client_data == 160'000);
  CHECK(d.cb.used_bytes() == 0);
}
