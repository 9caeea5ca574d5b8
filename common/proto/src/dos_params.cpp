#include "conflux/proto/dos_params.hpp"

#include <algorithm>
#include <limits>

namespace conflux::proto {
namespace {

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

using Params = std::map<std::string, std::int32_t>;

// networkstatus_get_param(): the consensus value clamped to [lo, hi], or the default.
std::int64_t param(const Params& ns, const char* name, std::int64_t def, std::int64_t lo, std::int64_t hi) {
  auto it = ns.find(name);
  if (it == ns.end()) return def;
  return std::clamp<std::int64_t>(it->second, lo, hi);
}

// A torrc number that is set (non-zero) wins; else the consensus's.
std::uint32_t number(std::uint32_t torrc, const Params& ns, const char* name, std::int64_t def, std::int64_t lo,
                     std::int64_t hi) {
  if (torrc != 0) return torrc;
  return static_cast<std::uint32_t>(param(ns, name, def, lo, hi));
}

bool enabled(std::optional<bool> torrc, const Params& ns, const char* name) {
  if (torrc) return *torrc;
  return param(ns, name, 0, 0, 1) != 0;
}

}  // namespace

DosParams dos_params_from(const DosOptions& o, const Params& ns) {
  DosParams p;
  p.cc_enabled = enabled(o.cc_enabled, ns, "DoSCircuitCreationEnabled");
  p.cc_min_connections = number(o.cc_min_connections, ns, "DoSCircuitCreationMinConnections", 3, 1, kInt32Max);
  p.cc_rate = number(o.cc_rate, ns, "DoSCircuitCreationRate", 3, 1, kInt32Max);
  p.cc_burst = number(o.cc_burst, ns, "DoSCircuitCreationBurst", 90, 1, kInt32Max);
  p.cc_defense = static_cast<DosCircuitDefense>(
      number(o.cc_defense_type, ns, "DoSCircuitCreationDefenseType", 2, 1, 2));
  p.cc_defense_time_period =
      number(o.cc_defense_time_period, ns, "DoSCircuitCreationDefenseTimePeriod", 3600, 0, kInt32Max);

  p.conn_enabled = enabled(o.conn_enabled, ns, "DoSConnectionEnabled");
  p.conn_max_concurrent = number(o.conn_max_concurrent, ns, "DoSConnectionMaxConcurrentCount", 100, 1, kInt32Max);
  p.conn_defense = static_cast<DosConnDefense>(number(o.conn_defense_type, ns, "DoSConnectionDefenseType", 2, 1, 2));
  p.conn_connect_rate = number(o.conn_connect_rate, ns, "DoSConnectionConnectRate", 20, 1, kInt32Max);
  p.conn_connect_burst = number(o.conn_connect_burst, ns, "DoSConnectionConnectBurst", 40, 1, kInt32Max);
  p.conn_connect_defense_time_period = number(o.conn_connect_defense_time_period, ns,
                                              "DoSConnectionConnectDefenseTimePeriod", 24 * 3600, 10, kInt32Max);

  p.stream_enabled = enabled(o.stream_enabled, ns, "DoSStreamCreationEnabled");
  p.stream_rate = number(o.stream_rate, ns, "DoSStreamCreationRate", 100, 1, kInt32Max);
  p.stream_burst = number(o.stream_burst, ns, "DoSStreamCreationBurst", 300, 1, kInt32Max);
  p.stream_defense = static_cast<DosStreamDefense>(
      number(o.stream_defense_type, ns, "DoSStreamCreationDefenseType", 2, 1, 3));

  p.num_circ_max_outq = static_cast<std::uint32_t>(param(ns, "dos_num_circ_max_outq", 3, 0, kInt32Max));
  return p;
}

}  // namespace conflux::proto
