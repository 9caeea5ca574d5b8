// XON/XOFF stream flow control (prop 324 section 4) as tor 0.4.9 runs it:
// when the delivering edge sends XOFF and XON, the drain-rate advisory,
// and what the packaging edge does with them.
#include <catch2/catch.hpp>

#include <chrono>
#include <vector>

#include "conflux/proto/cc_stream_flow.hpp"

using namespace conflux;
using namespace conflux::proto;
using std::chrono::microseconds;

namespace {

CcClock::time_point at_us(std::int64_t us) { return CcClock::time_point{} + microseconds{us}; }

constexpr std::uint64_t kCell = 498;  // a full DATA cell's payload
constexpr std::uint64_t kXoffLimit = 500 * 488;

bool is_xoff(const std::optional<StreamFlowMsg>& m) { return m && std::holds_alternative<cell::XoffMsg>(*m); }
std::optional<std::uint32_t> xon_rate(const std::optional<StreamFlowMsg>& m) {
  if (!m || !std::holds_alternative<cell::XonMsg>(*m)) return std::nullopt;
  return std::get<cell::XonMsg>(*m).kbps_ewma;
}

struct Event {
  std::int64_t ms = 0;
  bool xoff = false;
  std::uint32_t kbps = 0;
  friend bool operator==(const Event&, const Event&) = default;
};

}  // namespace

TEST_CASE("xoff: sent only when the buffer stays above the limit past the 5 ms grace", "[cc][xonxoff]") {
  ClockHealth clock;
  StreamDeliverFlow f(CcParams{}, StreamEdge::ClientToExit, clock);
  CHECK(f.xoff_limit_bytes() == kXoffLimit);
  const std::int64_t t0 = 1'000'000;
  CHECK_FALSE(f.on_data_buffered(at_us(t0), kXoffLimit).has_value());  // at the limit, not above
  CHECK_FALSE(f.on_data_buffered(at_us(t0), kXoffLimit + 1).has_value());  // grace starts
  CHECK_FALSE(f.on_data_buffered(at_us(t0 + 5000), kXoffLimit + 500).has_value());  // not yet past
  CHECK(is_xoff(f.on_data_buffered(at_us(t0 + 5001), kXoffLimit + 1000)));
  CHECK(f.xoff_sent());
  CHECK(f.xoffs_sent() == 1);
  // Only one XOFF until an XON.
  CHECK_FALSE(f.on_data_buffered(at_us(t0 + 20'000), kXoffLimit + 2000).has_value());
  CHECK(f.xoffs_sent() == 1);
}

TEST_CASE("xoff: a buffer that drains below the limit within the grace period sends none", "[cc][xonxoff]") {
  ClockHealth clock;
  StreamDeliverFlow f(CcParams{}, StreamEdge::ClientToExit, clock);
  CHECK_FALSE(f.on_data_buffered(at_us(0), kXoffLimit + 1).has_value());
  CHECK_FALSE(f.on_drained(at_us(2000), 10'000, kXoffLimit - 9999).has_value());
  CHECK_FALSE(f.on_data_buffered(at_us(3000), kXoffLimit - 9000).has_value());  // below: grace cleared
  CHECK_FALSE(f.on_data_buffered(at_us(4000), kXoffLimit + 1).has_value());     // a new grace starts
  CHECK_FALSE(f.on_data_buffered(at_us(9000), kXoffLimit + 2).has_value());
  CHECK(is_xoff(f.on_data_buffered(at_us(9001), kXoffLimit + 3)));
}

TEST_CASE("xoff: exits use cc_xoff_exit, clients and onion services cc_xoff_client", "[cc][xonxoff]") {
  ClockHealth clock;
  const CcParams p = cc_params_from({{"cc_xoff_client", 100}, {"cc_xoff_exit", 300}}).params;
  CHECK(StreamDeliverFlow(p, StreamEdge::ClientToExit, clock).xoff_limit_bytes() == 100 * 488);
  CHECK(StreamDeliverFlow(p, StreamEdge::OnionService, clock).xoff_limit_bytes() == 100 * 488);
  CHECK(StreamDeliverFlow(p, StreamEdge::Exit, clock).xoff_limit_bytes() == 300 * 488);
}

// A reader behind a stream: DATA arrives at 4 cells per ms (about 2 MB/s)
// while the packaging side may send; each ms the reader first writes up to
// `reader_bytes(ms)` bytes. Messages cross instantly.
struct SlowReader {
  ClockHealth clock;
  StreamDeliverFlow deliver{CcParams{}, StreamEdge::ClientToExit, clock};
  StreamPackageFlow package{CcParams{}, StreamEdge::Exit};
  std::uint64_t buffered = 0;
  std::uint64_t max_buffered = 0;
  std::vector<Event> events;

  void handle(std::int64_t ms, const std::optional<StreamFlowMsg>& m) {
    if (is_xoff(m)) {
      events.push_back({ms, true, 0});
      CHECK(package.on_xoff() == FlowCellVerdict::Valid);
    } else if (auto r = xon_rate(m)) {
      events.push_back({ms, false, *r});
      CHECK(package.on_xon(std::get<cell::XonMsg>(*m), at_us(ms * 1000)) == FlowCellVerdict::Valid);
    }
  }

  template <class F>
  void run(std::int64_t from_ms, std::int64_t to_ms, F reader_bytes) {
    for (std::int64_t ms = from_ms; ms <= to_ms; ++ms) {
      const auto now = at_us(ms * 1000);
      if (buffered > 0) {
        const std::uint64_t w = std::min<std::uint64_t>(buffered, reader_bytes(ms));
        buffered -= w;
        handle(ms, deliver.on_drained(now, w, buffered));
      }
      for (int c = 0; c < 4 && package.may_package(); ++c) {
        package.on_data_packaged(kCell);
        buffered += kCell;
        max_buffered = std::max(max_buffered, buffered);
        handle(ms, deliver.on_data_buffered(now, buffered));
      }
    }
  }
};

TEST_CASE("xon: after an XOFF, sent when the buffer has emptied, with the measured drain rate",
          "[cc][xonxoff]") {
  // The buffer grows 992 bytes per ms. From 246 ms it stays above 244000
  // (a tick's first cell no longer dips below and restarts the grace), so
  // the XOFF goes at 252 ms with 249490 bytes buffered, which drain at
  // 1000 per ms until 502 ms. The drain rate is measured in batches of over
  // 249000 bytes: the first is 250000 bytes in the 250 ms up to 252 ms
  // (1000 kB/s, discarded by the XOFF); the second is the 249490 bytes
  // drained from 252 ms to 502 ms, for which tor divides the previous
  // batch's 250000 bytes by these 250 ms: 1000 kB/s again.
  SlowReader r;
  r.run(1, 1500, [](std::int64_t) -> std::uint64_t { return 1000; });
  const std::vector<Event> expected{{252, true, 0}, {502, false, 1000}, {753, true, 0}, {1003, false, 1000},
                                    {1254, true, 0}};
  CHECK(r.events == expected);
  CHECK(r.deliver.xoffs_sent() == 3);
  CHECK(r.deliver.xons_sent() == 2);
  // Bounded: the limit plus what arrives in the 5 ms grace and its tick.
  CHECK(r.max_buffered > kXoffLimit);
  CHECK(r.max_buffered <= kXoffLimit + 6 * 4 * kCell);
  CHECK(r.package.xoffs_received() == 3);
  CHECK(r.package.xons_received() == 2);
  CHECK_FALSE(r.package.may_package());
  CHECK(r.package.rate_limit_bytes_per_s() == 1'000'000);
}

TEST_CASE("xon: a reader that keeps up has its advertised rate doubled by advisory XONs", "[cc][xonxoff]") {
  // As above until the XON at 502 ms; then the reader takes everything each
  // ms (1992 bytes), so the buffer is empty at every write. After each
  // further 249000 bytes drained with it empty (125 ms) the rate doubles,
  // and the next write sends an advisory XON with it, as it has moved more
  // than cc_xon_change_pct (25%) from the one last sent.
  SlowReader r;
  r.run(1, 502, [](std::int64_t) -> std::uint64_t { return 1000; });
  REQUIRE(r.events.size() == 2);
  r.run(503, 1010, [](std::int64_t) -> std::uint64_t { return 4000; });
  const std::vector<Event> expected{{252, true, 0},       {502, false, 1000},  {628, false, 2000},
                                    {753, false, 4000},   {878, false, 8000},  {1003, false, 16000}};
  CHECK(r.events == expected);
  CHECK(r.package.may_package());
  CHECK(r.package.rate_limit_bytes_per_s() == 16'000'000);
}

TEST_CASE("xon: with the clock marked broken no rate is measured, and the XON says unlimited",
          "[cc][xonxoff]") {
  SlowReader r;
  r.clock.broken = true;
  r.run(1, 520, [](std::int64_t) -> std::uint64_t { return 1000; });
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[0] == Event{252, true, 0});
  CHECK(r.events[1] == Event{502, false, 0});
  CHECK(r.package.rate_limit_bytes_per_s() == 0x7fffffffu);
}

// ---- the packaging side --------------------------------------------------------

TEST_CASE("xoff received: packaging stops, XON resumes it with the advised rate", "[cc][xonxoff]") {
  StreamPackageFlow p(CcParams{}, StreamEdge::Exit);
  CHECK(p.may_package());
  CHECK(p.rate_limit_bytes_per_s() == 0x7fffffffu);
  CHECK(p.on_xoff() == FlowCellVerdict::Valid);
  CHECK_FALSE(p.may_package());
  // A second XOFF is not valid data and changes nothing.
  CHECK(p.on_xoff() == FlowCellVerdict::Suspicious);
  CHECK(p.xoffs_received() == 1);
  CHECK(p.on_xon(cell::XonMsg{250}, at_us(0)) == FlowCellVerdict::Valid);
  CHECK(p.may_package());
  CHECK(p.rate_limit_bytes_per_s() == 250'000);
  // An XON without an XOFF only changes the rate; 0 means unlimited, and a
  // rate beyond INT32_MAX bytes/s is unlimited too.
  CHECK(p.on_xon(cell::XonMsg{0}, at_us(0)) == FlowCellVerdict::Valid);
  CHECK(p.rate_limit_bytes_per_s() == 0x7fffffffu);
  CHECK(p.on_xon(cell::XonMsg{3'000'000}, at_us(0)) == FlowCellVerdict::Valid);
  CHECK(p.rate_limit_bytes_per_s() == 0x7fffffffu);
  CHECK(p.on_xon(cell::XonMsg{2'147'483}, at_us(0)) == FlowCellVerdict::Valid);
  CHECK(p.rate_limit_bytes_per_s() == 2'147'483'000u);
}

TEST_CASE("xoff received: a client flags XOFF/XON that outnumber the bytes it sent", "[cc][xonxoff]") {
  // The exit's XOFF limit is 244000 bytes: one XOFF needs that many sent.
  StreamPackageFlow p(CcParams{}, StreamEdge::ClientToExit);
  for (int i = 0; i < 489; ++i) p.on_data_packaged(498);  // 243522 bytes
  CHECK(p.on_xoff() == FlowCellVerdict::Suspicious);
  CHECK_FALSE(p.may_package());  // obeyed all the same
  CHECK(p.on_xon(cell::XonMsg{100}, at_us(0)) == FlowCellVerdict::Suspicious);
  p.on_data_packaged(498);  // 244020
  CHECK(p.on_xoff() == FlowCellVerdict::Suspicious);  // the second XOFF needs 488000
  CHECK(p.on_xon(cell::XonMsg{100}, at_us(0)) == FlowCellVerdict::Suspicious);
  for (int i = 0; i < 490; ++i) p.on_data_packaged(498);  // 488040
  CHECK(p.on_xoff() == FlowCellVerdict::Suspicious);  // a third needs 732000
  for (int i = 0; i < 490; ++i) p.on_data_packaged(498);  // 732060
  CHECK(p.on_xon(cell::XonMsg{100}, at_us(0)) == FlowCellVerdict::Valid);
  CHECK(p.bytes_sent() == 732'060);
}

TEST_CASE("xoff received: onion services check against cc_xoff_client, exits do not check", "[cc][xonxoff]") {
  const CcParams params = cc_params_from({{"cc_xoff_client", 10}, {"cc_xoff_exit", 1000}}).params;
  StreamPackageFlow hs(params, StreamEdge::OnionService);
  for (int i = 0; i < 10; ++i) hs.on_data_packaged(498);  // 4980 >= 10 * 488
  CHECK(hs.on_xoff() == FlowCellVerdict::Valid);
  StreamPackageFlow exit(params, StreamEdge::Exit);
  CHECK(exit.on_xoff() == FlowCellVerdict::Valid);
  CHECK(exit.on_xon(cell::XonMsg{1}, at_us(0)) == FlowCellVerdict::Valid);
}

TEST_CASE("xoff received: counters are halved before they saturate", "[cc][xonxoff]") {
  StreamPackageFlow p(CcParams{}, StreamEdge::Exit);
  for (int i = 0; i < 200; ++i) {
    REQUIRE(p.on_xoff() == FlowCellVerdict::Valid);
    REQUIRE(p.on_xon(cell::XonMsg{1}, at_us(0)) == FlowCellVerdict::Valid);
  }
  CHECK(p.xoffs_received() == 200);
  CHECK(p.xons_received() == 200);
  p.on_data_packaged(1000);
  CHECK(p.on_xoff() == FlowCellVerdict::Valid);
  CHECK(p.xoffs_received() == 101);
  CHECK(p.xons_received() == 100);
  CHECK(p.bytes_sent() == 500);
  // 10 MiB sent halves them too: the check is total >= 10485760 - len,
  // before adding.
  for (int i = 0; i < 21'054; ++i) p.on_data_packaged(498);
  CHECK(p.bytes_sent() == 10'485'392);  // 500 + 21054 * 498
  CHECK(p.xoffs_received() == 101);
  p.on_data_packaged(498);
  CHECK(p.bytes_sent() == 10'485'392 / 2 + 498);
  CHECK(p.xoffs_received() == 50);
  CHECK(p.xons_received() == 50);
}

TEST_CASE("xon rate: the reader's bucket holds one second of the advised rate and refills at it", "[cc][xonxoff]") {
  StreamPackageFlow p(CcParams{}, StreamEdge::Exit);  // no dropmark check
  // No XON yet, or XON 0: no limit.
  CHECK(p.read_allowance(at_us(0), 1'000'000) == 1'000'000);
  CHECK(p.read_wait(1'000'000) == CcClock::duration::zero());
  // 100 kB/s: a full second's worth, 100000 bytes, at once; then nothing.
  REQUIRE(p.on_xon(cell::XonMsg{100}, at_us(0)) == FlowCellVerdict::Valid);
  CHECK(p.read_allowance(at_us(0), 1'000'000) == 100'000);
  for (int i = 0; i < 200; ++i) p.on_data_packaged(500);
  CHECK(p.read_allowance(at_us(0), 498) == 0);
  // 498 bytes take 4.98 ms at 100 kB/s.
  CHECK(p.read_wait(498) == std::chrono::microseconds(4980));
  CHECK(p.read_allowance(at_us(4979), 498) == 497);
  CHECK(p.read_allowance(at_us(4980), 498) == 498);
  // Half a second later: 50000 bytes (the 498 above were not taken).
  CHECK(p.read_allowance(at_us(504'980), 1'000'000) == 50'498);
  // A lower rate caps what is left at its own second: 20 kB/s -> 20000.
  REQUIRE(p.on_xon(cell::XonMsg{20}, at_us(504'980)) == FlowCellVerdict::Valid);
  CHECK(p.read_allowance(at_us(504'980), 1'000'000) == 20'000);
  // A higher rate keeps what is left and refills faster: 1 MB/s.
  for (int i = 0; i < 40; ++i) p.on_data_packaged(500);
  REQUIRE(p.on_xon(cell::XonMsg{1000}, at_us(504'980)) == FlowCellVerdict::Valid);
  CHECK(p.read_allowance(at_us(504'980), 1'000'000) == 0);
  CHECK(p.read_allowance(at_us(514'980), 1'000'000) == 10'000);
  // XON 0 lifts the limit.
  REQUIRE(p.on_xon(cell::XonMsg{0}, at_us(514'980)) == FlowCellVerdict::Valid);
  CHECK(p.read_allowance(at_us(514'980), 5'000'000) == 5'000'000);
}
