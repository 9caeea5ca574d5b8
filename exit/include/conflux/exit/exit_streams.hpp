#pragma once
// The exit module: proto::ExitHandler backed by real sockets on an Asio
// io_context. Streams are per circuit; the module answers through the
// proto::CircuitOutput it is given and never writes cells any other way.
//
//   BEGIN     parse the target, check the exit policy (early, by port, for
//             hostnames; exactly once the address is known), resolve
//             (asynchronously, with a timeout), connect (with a timeout),
//             then CONNECTED with address and TTL, or END with the reason.
//   DATA      client -> socket through a bounded buffer; socket -> client in
//             DATA cells of up to 498 bytes, read only while the stream's
//             package window and the circuit's (CircuitOutput::can_send_data)
//             are open. Stream SENDMEs both ways (proto::StreamMachine).
//   END       from the client: stop relaying, flush what the client sent,
//             shut down our sending side and wait (bounded) for the server's
//             FIN, so the server sees a clean close rather than a reset.
//             EOF from the server: END DONE after the last DATA; socket
//             errors: END with the matching reason (CONNRESET, ...).
//   RESOLVE   A and AAAA, or PTR for in-addr.arpa / ip6.arpa names; RESOLVED
//             with the answers or a transient / nontransient error.
//   BEGIN_DIR with ExitConfig::dir_port: a stream to our own DirPort (no
//             policy, exit or not), then as for BEGIN, with an empty
//             CONNECTED; without a DirPort: END NOTDIRECTORY.
//
// Not an exit (ExitMode::NotExit): every BEGIN gets END EXITPOLICY, every
// RESOLVE an error answer; BEGIN_DIR is served as above.
//
// One thread: every method must be called on the io_context's thread. The
// object must outlive nothing: destroying it closes every socket, and
// handlers still queued on the io_context then do nothing.
#include <cstddef>
#include <memory>
#include <optional>

#include "conflux/exit/exit_config.hpp"
#include "conflux/proto/exit_interface.hpp"

namespace boost::asio {
class io_context;
}

namespace conflux::exit {

class ExitStreams final : public proto::ExitHandler {
 public:
  ExitStreams(boost::asio::io_context& io, proto::CircuitOutput& output, ExitConfig config);
  ~ExitStreams() override;
  ExitStreams(const ExitStreams&) = delete;
  ExitStreams& operator=(const ExitStreams&) = delete;

  void on_stream_message(proto::CircuitHandle circuit, StreamId stream, cell::RelayMsg msg) override;
  void on_circuit_writable(proto::CircuitHandle circuit) override;
  void on_circuit_closed(proto::CircuitHandle circuit, cell::DestroyReason reason) override;
  [[nodiscard]] std::size_t buffered_bytes() const override;
  [[nodiscard]] std::vector<proto::BufferedCircuit> buffered_circuits() const override;

  // A new policy (configuration reload) applies to streams opened from now on.
  void set_policy(proto::ExitPolicy policy);
  // New nameservers or resolver options (reload): lookups from now on use
  // them; the cache is emptied. Lookups in flight finish with the old ones.
  // False, changing nothing, when c-ares cannot start with them.
  bool set_dns(const DnsSettings& dns);
  // The controller's SIGNAL CLEARDNSCACHE.
  void clear_dns_cache();
  // The DirPort BEGIN_DIR streams go to, once it is bound (nullopt: none).
  void set_dir_port(std::optional<DirPortTarget> target);
  // Congestion-control parameters from a fresh consensus (XON/XOFF).
  void set_cc_params(const proto::CcParams& params);

  [[nodiscard]] ExitStats stats() const;
  // Streams (and pending RESOLVEs) the circuit has; closing ones not counted.
  [[nodiscard]] std::size_t streams_on(proto::CircuitHandle circuit) const;
  // Every stream object alive, closing ones included.
  [[nodiscard]] std::size_t stream_count() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace conflux::exit
