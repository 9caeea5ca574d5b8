// Random sequences of events against the Conflux set state machines.
// The first byte picks a mode:
//  - even: a hostile peer. Arbitrary SWITCHes, cells, leg changes, relinks
//    (legs rebased), pops, retransmit acks, LINK / LINKED_ACK at the exit.
//    Invariants: no crash; out-of-order memory within the per-set and
//    shared caps and equal to the budget's count; each delivered cell
//    advances last_delivered by exactly one; retransmit memory within its cap.
//  - odd: an honest sender. The input only picks legs and the interleaving
//    in which the legs' FIFOs reach the receiver; every call must succeed
//    and the delivered stream must equal the sent stream.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <vector>

#include "conflux/proto/conflux_linking.hpp"
#include "conflux/proto/conflux_receiver.hpp"
#include "conflux/proto/conflux_retransmit.hpp"
#include "conflux/proto/conflux_sender.hpp"
#include "fuzz_input.hpp"

using namespace conflux;
using namespace conflux::proto;

namespace {

using fuzz::Input;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

ConfluxTime at(std::uint32_t step) { return ConfluxTime{std::chrono::milliseconds(step)}; }

void hostile(Input in) {
  const ReorderBudgetConfig bcfg{std::size_t{64} << 10, std::size_t{32} << 10};
  ReorderBudget budget(bcfg);
  ReceiverLimits lim;
  lim.seq_window = 1000;
  lim.max_set_bytes = std::size_t{40} << 10;
  lim.resend_allowance_cells = 4;
  std::optional<ConfluxReceiver> rx1;
  rx1.emplace(SetId{1}, budget, lim);
  ConfluxReceiver rx2(SetId{2}, budget, lim);
  ConfluxSender tx;
  RetransmitLimits rl;
  rl.max_cells_per_leg = 16;
  rl.max_bytes = 4096;
  RetransmitBuffer rb(rl);
  ExitLinkConfig ecfg;
  ecfg.max_sets = 4;
  ecfg.max_sets_per_origin = 2;
  ecfg.max_legs_per_origin = 5;
  ecfg.max_legs_per_set = 3;
  ExitLinkRegistry exit(ecfg);
  std::uint64_t delivered1 = 0;
  std::uint32_t step = 0;

  while (!in.empty()) {
    ++step;
    const std::uint8_t op = in.u8();
    const LegId leg{static_cast<std::uint32_t>(in.u8() % 6)};
    ConfluxReceiver& rx = (op & 0x80) != 0 || !rx1 ? rx2 : *rx1;
    const bool is_rx1 = rx1 && &rx == &*rx1;
    switch (op & 0x0F) {
      case 0: {
        const SeqAbs base{in.u8() % 4 == 0 ? rx.last_delivered().value() : in.u8()};
        // A relinked leg counts again from a lower base.
        if ((op & 0x40) != 0) (void)rx.rebase_leg(leg, base);
        else (void)rx.add_leg(leg, base);
        break;
      }
      case 1: rx.remove_leg(leg); break;
      case 2: (void)rx.on_switch(leg, SeqRel{in.u8() < 200 ? in.u8() : in.u32()}); break;
      case 3:
      case 4: {
        SeqCell c;
        c.command = static_cast<cell::RelayCommand>(in.u8() % 50);
        c.body.resize(in.u8() * 2u);
        const SeqAbs before = rx.last_delivered();
        auto a = rx.on_cell(leg, std::move(c), at(step));
        if (a && a->fate == CellFate::Deliver) {
          check(rx.last_delivered() == before + 1);
          check(a->deliver.has_value());
          if (is_rx1) ++delivered1;
        } else {
          check(rx.last_delivered() == before);
        }
        break;
      }
      case 5: {
        const SeqAbs before = rx.last_delivered();
        if (rx.pop_ready()) {
          check(rx.last_delivered() == before + 1);
          if (is_rx1) ++delivered1;
        }
        break;
      }
      case 6: {
        if ((op & 0x40) != 0) {
          (void)tx.rebase_leg(leg, SeqAbs{in.u8()});
          rb.restart_leg(leg);
        } else {
          (void)tx.add_leg(leg, SeqAbs{in.u8()});
        }
        auto plan = tx.prepare_send(leg, static_cast<cell::RelayCommand>(in.u8() % 50));
        if (plan) {
          SeqCell c;
          c.body.resize(in.u8());
          (void)rb.on_cell_sent(leg, plan->seq, std::move(c));
          check(plan->seq == tx.last_seq_sent());
        }
        break;
      }
      case 7: (void)rb.on_leg_acked(leg, CellCount{in.u8() % 8u}); break;
      case 8: {
        const LegId dead[1] = {leg};
        auto r = rb.cells_to_resend(dead, SeqAbs{in.u8()});
        if (r) {
          for (std::size_t i = 1; i < r->size(); ++i) check((*r)[i - 1].seq < (*r)[i].seq);
          for (auto& c : *r) (void)tx.prepare_resend(LegId{static_cast<std::uint32_t>(in.u8() % 6)}, c.seq);
        }
        break;
      }
      case 9: {
        cell::ConfluxLinkMsg m;
        m.nonce.fill(static_cast<std::uint8_t>(in.u8() % 5));
        (void)exit.on_link(in.u8() % 3, leg, m);
        break;
      }
      case 10: (void)exit.make_linked(leg, {}, at(step)); break;
      case 11: (void)exit.on_linked_ack(leg, at(step * in.u8())); break;
      case 12:
        for (const LegId l : exit.expired(at(step * 1000))) (void)exit.remove_leg(l);
        break;
      case 13: (void)exit.remove_leg(leg); break;
      case 14:
        if (rx1 && in.u8() == 0) rx1.reset();  // destruction returns the bytes
        break;
      default: {
        for (const SetId s : budget.sets_to_close()) {
          if (s == SetId{1}) rx1.reset();
        }
        break;
      }
    }
    const std::size_t queued = (rx1 ? rx1->queued_bytes() : 0) + rx2.queued_bytes();
    check(budget.used_bytes() == queued);
    check(budget.used_bytes() <= bcfg.cap_bytes);
    check(rx2.queued_bytes() <= lim.max_set_bytes);
    check(!rx1 || rx1->queued_bytes() <= lim.max_set_bytes);
    check(!rx1 || rx1->last_delivered().value() == delivered1);
    check(rb.retained_bytes() <= rl.max_bytes);
    check(exit.set_count() <= ecfg.max_sets);
  }
}

struct Event {
  std::optional<SeqRel> sw;
  std::uint32_t tag = 0;
};

void honest(Input in) {
  ReorderBudget budget;
  ConfluxReceiver rx(SetId{1}, budget);
  ConfluxSender tx;
  const std::uint32_t legs = 2 + in.u8() % 3;
  std::map<std::uint32_t, std::deque<Event>> wire;
  for (std::uint32_t l = 0; l < legs; ++l) {
    check(tx.add_leg(LegId{l}, SeqAbs{0}).has_value());
    check(rx.add_leg(LegId{l}, SeqAbs{0}).has_value());
  }
  std::uint32_t sent = 0;
  std::uint32_t got = 0;
  auto take = [&](const SeqCell& c) {
    std::uint32_t tag = 0;
    for (std::uint8_t b : c.body) tag = (tag << 8) | b;
    check(tag == got);
    ++got;
  };
  auto arrive = [&](std::uint32_t l) {
    auto& q = wire[l];
    if (q.empty()) return;
    const Event ev = q.front();
    q.pop_front();
    if (ev.sw) {
      check(rx.on_switch(LegId{l}, *ev.sw).has_value());
      return;
    }
    SeqCell c;
    c.body = {static_cast<std::uint8_t>(ev.tag >> 24), static_cast<std::uint8_t>(ev.tag >> 16),
              static_cast<std::uint8_t>(ev.tag >> 8), static_cast<std::uint8_t>(ev.tag)};
    auto a = rx.on_cell(LegId{l}, std::move(c), at(ev.tag));
    check(a.has_value());
    if (a->deliver) take(*a->deliver);
    while (auto d = rx.pop_ready()) take(*d);
  };
  while (!in.empty() && sent < 5000) {
    const std::uint8_t op = in.u8();
    const std::uint32_t l = (op >> 1) % legs;
    if ((op & 1) != 0) {
      auto plan = tx.prepare_send(LegId{l}, cell::RelayCommand::Data);
      check(plan.has_value());
      if (plan->switch_first) wire[l].push_back(Event{plan->switch_first->relative_seq, 0});
      wire[l].push_back(Event{std::nullopt, sent++});
    } else {
      arrive(l);
    }
  }
  for (std::uint32_t l = 0; l < legs; ++l)
    while (!wire[l].empty()) arrive(l);
  check(got == sent);
  check(rx.queued_cells() == 0);
  check(budget.used_bytes() == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  Input in{data + 1, size - 1};
  if ((data[0] & 1) != 0) {
    honest(in);
  } else {
    hostile(in);
  }
  return 0;
}
