#pragma once
// The relay's denial-of-service defences (tor's dos.c) as numbers: what the
// operator set in the torrc (DosOptions, tor's "0 / auto = ask the
// consensus"), and what is in force after the consensus and tor's code
// defaults fill the rest (DosParams). The consensus parameters have the
// torrc options' names, as in tor; a value outside its range is clamped, as
// networkstatus_get_param() does.
//
// Defaults are tor 0.4.8's (circuit creation, connections) and 0.4.9's
// (stream creation): all three defences are off unless the torrc or the
// consensus turns them on.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace conflux::proto {

// DoSCircuitCreationDefenseType: 1 none, 2 refuse the CREATE cell.
enum class DosCircuitDefense : std::uint8_t { None = 1, RefuseCell = 2 };
// DoSConnectionDefenseType: 1 none, 2 close the new connection.
enum class DosConnDefense : std::uint8_t { None = 1, Close = 2 };
// DoSStreamCreationDefenseType: 1 none, 2 refuse the stream (END
// RESOURCELIMIT), 3 close the circuit.
enum class DosStreamDefense : std::uint8_t { None = 1, Refuse = 2, CloseCircuit = 3 };

// The torrc's values. nullopt ("auto") and 0 mean "the consensus decides".
struct DosOptions {
  std::optional<bool> cc_enabled;
  std::uint32_t cc_min_connections = 0;
  std::uint32_t cc_rate = 0;
  std::uint32_t cc_burst = 0;
  std::uint32_t cc_defense_type = 0;
  std::uint32_t cc_defense_time_period = 0;  // seconds
  std::optional<bool> conn_enabled;
  std::uint32_t conn_max_concurrent = 0;
  std::uint32_t conn_defense_type = 0;
  std::uint32_t conn_connect_rate = 0;
  std::uint32_t conn_connect_burst = 0;
  std::uint32_t conn_connect_defense_time_period = 0;  // seconds
  std::optional<bool> stream_enabled;
  std::uint32_t stream_rate = 0;
  std::uint32_t stream_burst = 0;
  std::uint32_t stream_defense_type = 0;

  friend bool operator==(const DosOptions&, const DosOptions&) = default;
};

struct DosParams {
  bool cc_enabled = false;                   // DoSCircuitCreationEnabled
  std::uint32_t cc_min_connections = 3;      // DoSCircuitCreationMinConnections 1..INT32_MAX
  std::uint32_t cc_rate = 3;                 // DoSCircuitCreationRate, per second, 1..INT32_MAX
  std::uint32_t cc_burst = 90;               // DoSCircuitCreationBurst 1..INT32_MAX
  DosCircuitDefense cc_defense = DosCircuitDefense::RefuseCell;
  std::uint32_t cc_defense_time_period = 3600;  // DoSCircuitCreationDefenseTimePeriod 0..INT32_MAX s
  bool conn_enabled = false;                 // DoSConnectionEnabled
  std::uint32_t conn_max_concurrent = 100;   // DoSConnectionMaxConcurrentCount 1..INT32_MAX
  DosConnDefense conn_defense = DosConnDefense::Close;
  std::uint32_t conn_connect_rate = 20;      // DoSConnectionConnectRate, per second
  std::uint32_t conn_connect_burst = 40;     // DoSConnectionConnectBurst
  std::uint32_t conn_connect_defense_time_period = 24 * 3600;  // 10..INT32_MAX s
  bool stream_enabled = false;               // DoSStreamCreationEnabled
  std::uint32_t stream_rate = 100;           // DoSStreamCreationRate, per circuit per second
  std::uint32_t stream_burst = 300;          // DoSStreamCreationBurst
  DosStreamDefense stream_defense = DosStreamDefense::Refuse;
  // dos_num_circ_max_outq: how often a client may fill a circuit's queue
  // (circ_max_cell_queue_size) before it is marked; 0 = never.
  std::uint32_t num_circ_max_outq = 3;

  friend bool operator==(const DosParams&, const DosParams&) = default;
};

// The values in force: each torrc value that is set, else the consensus
// parameter of the same name (clamped), else tor's default.
[[nodiscard]] DosParams dos_params_from(const DosOptions& torrc, const std::map<std::string, std::int32_t>& consensus);

}  // namespace conflux::proto
