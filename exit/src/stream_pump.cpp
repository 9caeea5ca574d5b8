// The exit's stream data path, sans-I/O (stream_pump.hpp has the rules).
#include "conflux/exit/stream_pump.hpp"

#include <algorithm>
#include <type_traits>
#include <unordered_set>
#include <utility>

#include "stream_xon_xoff.hpp"

namespace conflux::exit {

namespace {

enum class Stage : std::uint8_t {
  Connecting,  // BEGIN accepted; the client's DATA waits (optimistic data)
  Open,        // data both ways
  Closing,     // END exchanged: flush to the server, shut down, await its FIN
};

struct PumpStream {
  PumpStream(StreamRef r, proto::CircuitHandle c, StreamId s, proto::StreamKind kind,
             const proto::CcParams* cc, const proto::ClockHealth& clock)
      : ref(r), circuit(c), id(s), machine(proto::StreamMachine::exit_stream(kind, {.sendme_windows = cc == nullptr})) {
    if (cc != nullptr) xon_xoff.emplace(*cc, clock);
  }

  StreamRef ref;
  proto::CircuitHandle circuit;
  StreamId id;
  proto::StreamMachine machine;
  Stage stage = Stage::Connecting;
  bool attached = true;  // one of its circuit's streams (false once Closing)
  // On a circuit with congestion control: XON/XOFF instead of stream SENDMEs.
  std::optional<StreamXonXoff> xon_xoff;

  // Server -> client. 'down' holds only bytes of completed reads.
  std::vector<std::uint8_t> down;
  std::size_t down_off = 0;
  bool reading = false;
  bool throttled = false;  // the XON rate allows no read until a ReadLater fires
  bool eof = false;
  bool in_turns = false;    // queued in its circuit's 'turns'
  bool in_readers = false;  // queued in its circuit's 'readers'

  // Client -> server. 'up_bytes' counts the queue and the write in flight.
  std::deque<std::vector<std::uint8_t>> up;
  std::size_t up_bytes = 0;
  proto::CcClock::time_point up_since{};  // when up_bytes last rose from 0
  std::size_t in_flight = 0;
  bool shut_down = false;

  [[nodiscard]] bool has_cells() const noexcept { return down_off < down.size(); }
  // The stream window (fixed windows), or the client's XON/XOFF (CC).
  [[nodiscard]] bool window_open() const noexcept {
    if (xon_xoff) return xon_xoff->may_package();
    return machine.package_window() > CellCount{0};
  }
  // May send (has cells) or read (has none) once the circuit takes DATA.
  [[nodiscard]] bool wants_circuit() const noexcept {
    return stage == Stage::Open && attached && !reading && !throttled && window_open() && (has_cells() || !eof);
  }
  [[nodiscard]] std::size_t max_upstream(const PumpLimits& limits) const noexcept {
    return xon_xoff ? limits.max_upstream_bytes_cc : limits.max_upstream_bytes;
  }
};

enum class Writable : std::uint8_t { Unknown, Yes, No };

struct PumpCircuit {
  std::unordered_set<StreamRef> members;  // attached streams
  // What the runtime last said. Yes lasts for one DATA cell (the window is
  // the runtime's); No lasts until it says Yes (on_circuit_writable).
  Writable writable = Writable::Unknown;
  bool asked = false;             // a CheckWritable is out
  std::deque<StreamRef> turns;    // streams with cells, in turn order
  std::deque<StreamRef> readers;  // streams that read once the circuit is open
};

constexpr std::size_t kMaxChunksPerWrite = 32;

}  // namespace

struct StreamPump::Impl {
  explicit Impl(PumpLimits l) : limits(l) {
    limits.read_cells = std::max<std::size_t>(limits.read_cells, 1);
    limits.drain_bytes = std::max<std::size_t>(limits.drain_bytes, 1);
  }

  PumpLimits limits;
  // XON drain rates are not measured while the clock looks broken: the
  // runtime's flag (limits.clock_health), else this one, which stays healthy.
  proto::ClockHealth own_clock_health;
  [[nodiscard]] const proto::ClockHealth& clock_health() const {
    return limits.clock_health != nullptr ? *limits.clock_health : own_clock_health;
  }
  // The latest time an event brought. Reads are sized by it: a stale one
  // only underestimates what the XON rate's bucket allows, and ReadLater
  // comes back with a fresh one.
  proto::CcClock::time_point now{};
  void saw(proto::CcClock::time_point t) { now = std::max(now, t); }
  StreamRef next_ref = 1;
  std::unordered_map<StreamRef, PumpStream> streams;
  std::size_t up_total = 0;  // every stream's up_bytes
  std::unordered_map<proto::CircuitHandle, PumpCircuit> circuits;
  std::vector<PumpAction> actions;

  PumpStream* find(StreamRef ref) {
    auto it = streams.find(ref);
    return it == streams.end() ? nullptr : &it->second;
  }
  PumpCircuit* circuit_of(const PumpStream& s) {
    if (!s.attached) return nullptr;
    auto it = circuits.find(s.circuit);
    return it == circuits.end() ? nullptr : &it->second;
  }
  // Built in place: GCC 12 at -O2 warns (maybe-uninitialized, a false
  // positive) when a temporary variant is moved into the vector.
  template <class A>
  void emit(A&& a) {
    actions.emplace_back(std::in_place_type<std::decay_t<A>>, std::forward<A>(a));
  }
  void send(const PumpStream& s, cell::RelayMsg msg) {
    emit(pump::Send{s.ref, s.circuit, s.id, std::move(msg)});
  }

  // ---- tables ------------------------------------------------------------------
  void leave_circuit(PumpStream& s) {
    PumpCircuit* c = circuit_of(s);
    s.attached = false;
    if (c == nullptr) return;
    c->members.erase(s.ref);
    // Keep the queues to live streams only, so they stay bounded by the
    // circuit's stream limit.
    if (s.in_turns) std::erase(c->turns, s.ref);
    if (s.in_readers) std::erase(c->readers, s.ref);
    s.in_turns = s.in_readers = false;
    if (c->members.empty()) circuits.erase(s.circuit);
  }
  void forget(StreamRef ref) {
    PumpStream* s = find(ref);
    if (s == nullptr) return;
    up_total -= std::min(up_total, s->up_bytes);
    leave_circuit(*s);
    streams.erase(ref);
  }
  void finish(PumpStream& s) {
    const StreamRef ref = s.ref;
    emit(pump::Finish{ref});
    forget(ref);
  }
  void kill_circuit(proto::CircuitHandle c) {
    emit(pump::KillCircuit{c});
    auto it = circuits.find(c);
    if (it == circuits.end()) return;
    const std::vector<StreamRef> members(it->second.members.begin(), it->second.members.end());
    for (StreamRef r : members) forget(r);
    circuits.erase(c);
  }

  // ---- server -> client ----------------------------------------------------------
  // Queues the stream for the circuit: a turn to send if it holds cells, a
  // read if it holds none.
  void schedule(PumpStream& s) {
    PumpCircuit* c = circuit_of(s);
    if (c == nullptr || !s.wants_circuit()) return;
    if (s.has_cells()) {
      if (!s.in_turns) c->turns.push_back(s.ref);
      s.in_turns = true;
    } else {
      if (!s.in_readers) c->readers.push_back(s.ref);
      s.in_readers = true;
    }
  }
  // Drops queue entries whose stream can no longer use the circuit (its
  // window shut, a read started, END): a SENDME or a read queues it again.
  bool prune_turns(PumpCircuit& c) {
    while (!c.turns.empty()) {
      PumpStream* s = find(c.turns.front());
      if (s != nullptr && s->wants_circuit() && s->has_cells()) return true;
      if (s != nullptr) s->in_turns = false;
      c.turns.pop_front();
    }
    return false;
  }
  bool any_reader(PumpCircuit& c) {
    for (StreamRef r : c.readers) {
      const PumpStream* s = find(r);
      if (s != nullptr && s->wants_circuit() && !s->has_cells()) return true;
    }
    return false;
  }
  void start_read(PumpStream& s) {
    // With XON/XOFF the machine's stream window stays full: reads are
    // read_cells long, and the circuit's congestion window limits.
    const auto window = static_cast<std::size_t>(s.machine.package_window().value());
    std::size_t want = std::min(window, limits.read_cells) * kMaxDataLen;
    if (s.xon_xoff) {
      // The client's XON rate: read what it allows, but a cell's worth at
      // least (no crumbs of DATA), else wait for that much.
      const std::size_t least = std::min(want, kMaxDataLen);
      const std::uint64_t allowed = s.xon_xoff->read_allowance(now, want);
      if (allowed < least) {
        s.throttled = true;
        emit(pump::ReadLater{s.ref, s.xon_xoff->read_wait(least)});
        return;
      }
      want = static_cast<std::size_t>(allowed);
    }
    s.reading = true;
    emit(pump::StartRead{s.ref, want, false});
  }
  void start_reads(PumpCircuit& c) {
    std::deque<StreamRef> readers;
    readers.swap(c.readers);
    for (StreamRef r : readers) {
      PumpStream* s = find(r);
      if (s == nullptr) continue;
      s->in_readers = false;
      if (s->wants_circuit() && !s->has_cells()) start_read(*s);
    }
  }
  void send_one_cell(PumpCircuit& c) {
    if (!prune_turns(c)) return;
    PumpStream& s = *find(c.turns.front());
    c.turns.pop_front();
    s.in_turns = false;
    if (!s.machine.data_sent()) return;  // wants_circuit() said Open with a window
    const std::size_t n = std::min(kMaxDataLen, s.down.size() - s.down_off);
    const auto first = s.down.begin() + static_cast<std::ptrdiff_t>(s.down_off);
    cell::DataMsg msg;
    msg.data.assign(first, first + static_cast<std::ptrdiff_t>(n));
    s.down_off += n;
    if (s.xon_xoff) s.xon_xoff->on_packaged(static_cast<std::uint32_t>(n));
    if (!s.has_cells()) {
      s.down.clear();
      s.down_off = 0;
    }
    send(s, std::move(msg));
    schedule(s);  // to the back: the next stream goes first
  }
  // Whatever the circuit can do now: ask whether it takes DATA, or (having
  // just been told yes) start the reads and send one cell.
  void service(proto::CircuitHandle circuit) {
    auto it = circuits.find(circuit);
    if (it == circuits.end()) return;
    PumpCircuit& c = it->second;
    if (c.writable == Writable::No) return;
    const bool wanted = prune_turns(c) || any_reader(c);
    if (c.writable == Writable::Yes && wanted) {
      start_reads(c);
      send_one_cell(c);
    }
    c.writable = Writable::Unknown;
    if (!c.asked && (prune_turns(c) || any_reader(c))) {
      c.asked = true;
      emit(pump::CheckWritable{circuit});
    }
  }
  void schedule_and_service(PumpStream& s) {
    const proto::CircuitHandle c = s.circuit;
    schedule(s);
    service(c);
  }

  // ---- client -> server ----------------------------------------------------------
  void pump_up(PumpStream& s) {
    if (s.stage == Stage::Connecting || s.in_flight > 0 || s.shut_down || s.up.empty()) return;
    pump::WriteToServer w{s.ref, {}};
    while (!s.up.empty() && w.chunks.size() < kMaxChunksPerWrite) {
      s.in_flight += s.up.front().size();
      w.chunks.push_back(std::move(s.up.front()));
      s.up.pop_front();
    }
    emit(std::move(w));
  }
  void send_flow(PumpStream& s, std::optional<cell::RelayMsg> msg) {
    // Also while connecting (optimistic data waits then); never after END.
    if (msg && s.stage != Stage::Closing && s.attached) send(s, std::move(*msg));
  }
  void send_deferred_sendmes(PumpStream& s) {
    if (s.stage != Stage::Open || s.up_bytes >= kBacklogCells * kMaxDataLen) return;
    while (s.machine.take_deferred_sendme()) send(s, cell::SendmeMsg{});
  }

  // ---- closing ---------------------------------------------------------------------
  void begin_closing(PumpStream& s) {
    s.stage = Stage::Closing;
    leave_circuit(s);
    emit(pump::Detach{s.ref});
    // What the server sends now is read only to reach its FIN, so that our
    // close is not a reset.
    s.down.clear();
    s.down_off = 0;
    if (!s.reading && !s.eof) {
      s.reading = true;
      emit(pump::StartRead{s.ref, limits.drain_bytes, true});
    }
    maybe_finish_closing(s);
  }
  void maybe_finish_closing(PumpStream& s) {
    if (s.in_flight > 0 || !s.up.empty()) return;
    if (!s.shut_down) {
      s.shut_down = true;
      emit(pump::ShutdownSend{s.ref});
    }
    if (s.eof) finish(s);
  }
  // The edge failed or reached EOF while open: END, as the machine says.
  void edge_closed(PumpStream& s, cell::EndReason why) {
    const proto::StreamActions a = s.machine.edge_closed(why);
    if (a.send_end) send(s, cell::EndMsg{*a.send_end, std::nullopt});
  }

  // Carries out the StreamMachine's answer; false if the stream is gone.
  bool act(PumpStream& s, const proto::StreamActions& a) {
    if (a.violation) emit(pump::Violation{s.ref, proto::to_string(*a.violation)});
    if (a.closes_circuit()) {
      const proto::CircuitHandle c = s.circuit;
      if (!s.attached) forget(s.ref);
      kill_circuit(c);
      return false;
    }
    if (a.send_sendme) send(s, cell::SendmeMsg{});
    if (a.send_end) {
      send(s, cell::EndMsg{*a.send_end, std::nullopt});
      finish(s);
      return false;
    }
    if (a.resume_reading) schedule_and_service(s);
    return true;
  }
};

// ---- the public face -----------------------------------------------------------------

StreamPump::StreamPump(PumpLimits limits) : impl_(std::make_unique<Impl>(limits)) {}
StreamPump::~StreamPump() = default;
StreamPump::StreamPump(StreamPump&&) noexcept = default;
StreamPump& StreamPump::operator=(StreamPump&&) noexcept = default;

void StreamPump::set_cc_params(const proto::CcParams& params) { impl_->limits.cc = params; }

StreamRef StreamPump::add(proto::CircuitHandle circuit, StreamId stream, proto::StreamKind kind,
                          bool congestion_control) {
  const StreamRef ref = impl_->next_ref++;
  const proto::CcParams* cc = congestion_control ? &impl_->limits.cc : nullptr;
  impl_->streams.try_emplace(ref, ref, circuit, stream, kind, cc, impl_->clock_health());
  impl_->circuits[circuit].members.insert(ref);
  return ref;
}

void StreamPump::opened(StreamRef ref) {
  PumpStream* s = impl_->find(ref);
  if (s == nullptr || s->stage != Stage::Connecting) return;
  (void)s->machine.connect_succeeded();
  s->stage = Stage::Open;
  impl_->pump_up(*s);  // the optimistic data first
  impl_->schedule_and_service(*s);
}

void StreamPump::remove(StreamRef ref) { impl_->forget(ref); }

std::size_t StreamPump::buffered_bytes() const noexcept { return impl_->up_total; }

std::vector<proto::BufferedCircuit> StreamPump::buffered_circuits() const {
  std::unordered_map<proto::CircuitHandle, proto::BufferedCircuit> by;
  for (const auto& [ref, s] : impl_->streams) {
    // A stream that left its circuit (closing) is bounded by its linger
    // timeout; closing a circuit would not free it.
    if (s.up_bytes == 0 || !s.attached) continue;
    auto [it, fresh] = by.try_emplace(s.circuit, proto::BufferedCircuit{s.circuit, 0, s.up_since});
    it->second.bytes += s.up_bytes;
    if (!fresh) it->second.oldest = std::min(it->second.oldest, s.up_since);
  }
  std::vector<proto::BufferedCircuit> out;
  out.reserve(by.size());
  for (auto& [c, b] : by) out.push_back(b);
  return out;
}

void StreamPump::circuit_closed(proto::CircuitHandle circuit) {
  auto it = impl_->circuits.find(circuit);
  if (it == impl_->circuits.end()) return;
  const std::vector<StreamRef> members(it->second.members.begin(), it->second.members.end());
  for (StreamRef r : members) impl_->forget(r);
  impl_->circuits.erase(circuit);
}

void StreamPump::client_data(StreamRef ref, std::vector<std::uint8_t> data, proto::CcClock::time_point now) {
  impl_->saw(now);
  PumpStream* s = impl_->find(ref);
  if (s == nullptr) return;
  const bool backlogged = s->up_bytes >= kBacklogCells * kMaxDataLen;
  const proto::StreamActions a = s->machine.on_data(backlogged);
  if (a.deliver_data) {
    if (s->up_bytes + data.size() > s->max_upstream(impl_->limits)) {
      // Only a client ignoring its stream window (or our XOFF) gets here.
      impl_->emit(pump::Violation{ref, "client overran a stream's buffer"});
      const proto::CircuitHandle c = s->circuit;
      if (!s->attached) impl_->forget(ref);
      return impl_->kill_circuit(c);
    }
    if (s->up_bytes == 0) s->up_since = now;
    s->up_bytes += data.size();
    impl_->up_total += data.size();
    if (!data.empty()) s->up.push_back(std::move(data));
    if (s->xon_xoff) impl_->send_flow(*s, s->xon_xoff->on_queued(now, s->up_bytes));
  }
  if (!impl_->act(*s, a)) return;
  if (a.deliver_data) impl_->pump_up(*s);
}

void StreamPump::client_xoff(StreamRef ref) {
  PumpStream* s = impl_->find(ref);
  // Without congestion control tor ignores XON/XOFF.
  if (s == nullptr || !s->xon_xoff) return;
  s->xon_xoff->on_xoff();  // reads and packaging stop: wants_circuit() is false now
}

void StreamPump::client_xon(StreamRef ref, const cell::XonMsg& msg, proto::CcClock::time_point now) {
  impl_->saw(now);
  PumpStream* s = impl_->find(ref);
  if (s == nullptr || !s->xon_xoff) return;
  s->xon_xoff->on_xon(msg, now);
  impl_->schedule_and_service(*s);
}

void StreamPump::client_sendme(StreamRef ref) {
  if (PumpStream* s = impl_->find(ref)) impl_->act(*s, s->machine.on_sendme());
}

void StreamPump::client_end(StreamRef ref, cell::EndReason reason) {
  PumpStream* s = impl_->find(ref);
  if (s == nullptr) return;
  const proto::StreamActions a = s->machine.on_end(reason);
  if (a.dropped) return;
  // tor-spec 6.3: nothing more goes out for this stream. What the client
  // sent still reaches the server, which then sees our FIN.
  if (s->stage == Stage::Open) return impl_->begin_closing(*s);
  impl_->finish(*s);
}

void StreamPump::client_wrong_direction(StreamRef ref, bool connected) {
  PumpStream* s = impl_->find(ref);
  if (s == nullptr) return;
  impl_->act(*s, connected ? s->machine.on_connected() : s->machine.on_resolved());
}

void StreamPump::circuit_writable(proto::CircuitHandle circuit, bool writable) {
  auto it = impl_->circuits.find(circuit);
  if (it == impl_->circuits.end()) return;
  it->second.asked = false;
  it->second.writable = writable ? Writable::Yes : Writable::No;
  impl_->service(circuit);
}

void StreamPump::circuit_reopened(proto::CircuitHandle circuit) {
  auto it = impl_->circuits.find(circuit);
  if (it == impl_->circuits.end()) return;
  // An outstanding CheckWritable is answered after this anyway.
  if (it->second.writable == Writable::No) it->second.writable = Writable::Unknown;
  impl_->service(circuit);
}

void StreamPump::server_read(StreamRef ref, std::span<const std::uint8_t> bytes, proto::CcClock::time_point now) {
  impl_->saw(now);
  PumpStream* s = impl_->find(ref);
  if (s == nullptr || !s->reading) return;
  s->reading = false;
  if (s->stage == Stage::Closing) {
    s->reading = true;  // discard, read on until the FIN
    return impl_->emit(pump::StartRead{ref, impl_->limits.drain_bytes, true});
  }
  // A read starts only once everything read before is packaged.
  s->down.assign(bytes.begin(), bytes.end());
  s->down_off = 0;
  impl_->schedule_and_service(*s);
}

void StreamPump::read_allowed(StreamRef ref, proto::CcClock::time_point now) {
  impl_->saw(now);
  PumpStream* s = impl_->find(ref);
  if (s == nullptr || !s->throttled) return;
  s->throttled = false;
  impl_->schedule_and_service(*s);
}

void StreamPump::server_eof(StreamRef ref) {
  PumpStream* s = impl_->find(ref);
  if (s == nullptr) return;
  s->reading = false;
  s->eof = true;
  if (s->stage == Stage::Closing) return impl_->maybe_finish_closing(*s);
  // Everything read before went out already: reads start on an empty buffer.
  impl_->edge_closed(*s, cell::EndReason::Done);
  impl_->begin_closing(*s);
}

void StreamPump::server_error(StreamRef ref, cell::EndReason reason) {
  PumpStream* s = impl_->find(ref);
  if (s == nullptr) return;
  s->reading = false;
  if (s->stage == Stage::Open) impl_->edge_closed(*s, reason);
  impl_->finish(*s);
}

void StreamPump::server_written(StreamRef ref, std::size_t n, proto::CcClock::time_point now) {
  impl_->saw(now);
  PumpStream* s = impl_->find(ref);
  if (s == nullptr) return;
  n = std::min(n, s->in_flight);
  s->in_flight -= n;
  s->up_bytes -= n;
  impl_->up_total -= std::min(impl_->up_total, n);
  if (s->xon_xoff) impl_->send_flow(*s, s->xon_xoff->on_written(now, n, s->up_bytes));
  impl_->send_deferred_sendmes(*s);
  if (s->in_flight > 0) return;  // the rest of this write is still going
  if (!s->up.empty()) return impl_->pump_up(*s);
  if (s->stage == Stage::Closing) impl_->maybe_finish_closing(*s);
}

void StreamPump::write_failed(StreamRef ref, cell::EndReason reason) {
  PumpStream* s = impl_->find(ref);
  if (s == nullptr) return;
  // After END there is nobody to tell.
  if (s->stage == Stage::Open) impl_->edge_closed(*s, reason);
  impl_->finish(*s);
}

std::vector<PumpAction> StreamPump::take_actions() { return std::exchange(impl_->actions, {}); }

bool StreamPump::knows(StreamRef ref) const { return impl_->streams.contains(ref); }

std::size_t StreamPump::stream_count() const { return impl_->streams.size(); }

std::optional<proto::StreamState> StreamPump::state_of(StreamRef ref) const {
  auto it = impl_->streams.find(ref);
  if (it == impl_->streams.end()) return std::nullopt;
  return it->second.machine.state();
}

std::optional<std::uint64_t> StreamPump::xoffs_sent(StreamRef ref) const {
  auto it = impl_->streams.find(ref);
  if (it == impl_->streams.end() || !it->second.xon_xoff) return std::nullopt;
  return it->second.xon_xoff->up().xoffs_sent();
}

std::string StreamPump::describe(StreamRef ref) const {
  auto it = impl_->streams.find(ref);
  if (it == impl_->streams.end()) return {};
  const PumpStream& s = it->second;
  static constexpr const char* kStage[] = {"connecting", "open", "closing"};
  std::string out = std::string(kStage[static_cast<std::size_t>(s.stage)]) +
                    " reading=" + std::to_string(s.reading) + " throttled=" + std::to_string(s.throttled) +
                    " eof=" + std::to_string(s.eof) + " down_pending=" + std::to_string(s.down.size() - s.down_off) +
                    " in_turns=" + std::to_string(s.in_turns) + " in_readers=" + std::to_string(s.in_readers) +
                    " window_open=" + std::to_string(s.window_open()) + " up_bytes=" + std::to_string(s.up_bytes) +
                    " in_flight=" + std::to_string(s.in_flight);
  if (s.xon_xoff) {
    const auto& up = s.xon_xoff->up();
    const auto& down = s.xon_xoff->down();
    const auto tokens = down.bucket_tokens();
    out += " | we_xoffed=" + std::to_string(up.xoff_sent()) + " xoffs_sent=" + std::to_string(up.xoffs_sent()) +
           " xons_sent=" + std::to_string(up.xons_sent()) + " drain_kbps=" + std::to_string(up.drain_rate_kbps()) +
           " | client_xoffed=" + std::to_string(!down.may_package()) +
           " xoffs_recv=" + std::to_string(down.xoffs_received()) + " xons_recv=" + std::to_string(down.xons_received()) +
           " read_rate=" + std::to_string(down.rate_limit_bytes_per_s()) +
           " tokens=" + (tokens ? std::to_string(*tokens) : std::string("none"));
  }
  if (auto c = impl_->circuits.find(s.circuit); c != impl_->circuits.end()) {
    static constexpr const char* kWritable[] = {"unknown", "yes", "no"};
    out += " | circuit writable=" + std::string(kWritable[static_cast<std::size_t>(c->second.writable)]) +
           " asked=" + std::to_string(c->second.asked) + " turns=" + std::to_string(c->second.turns.size()) +
           " readers=" + std::to_string(c->second.readers.size());
  }
  return out;
}

bool StreamPump::reading(StreamRef ref) const {
  auto it = impl_->streams.find(ref);
  return it != impl_->streams.end() && it->second.reading;
}

}  // namespace conflux::exit
