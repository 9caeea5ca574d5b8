#pragma once
// Starting programs that outlive conflux-net, and recognising them later.
// A pid alone is not an identity (the kernel reuses them), so every record
// keeps the process's start time from /proc/PID/stat too: `down` signals
// only a process whose pid and start time both still match.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "conflux/bytes/result.hpp"

namespace conflux::netapp {

struct Spawned {
  pid_t pid = 0;
  std::uint64_t start_time = 0;
};

// fork, setsid (its own session: the terminal's Ctrl-C after `up` returned
// does not reach it), stdin from /dev/null, stdout and stderr appended to
// `output`, no other descriptors, exec. An exec failure is reported here,
// not discovered later. A non-empty `netns` runs it in that network
// namespace (/run/netns/NETNS, as `ip netns add` makes it).
[[nodiscard]] Result<Spawned, std::string> spawn_detached(const std::filesystem::path& binary,
                                                         const std::vector<std::string>& args,
                                                         const std::filesystem::path& output,
                                                         const std::string& netns = {});

// Runs a short program to its end (spawn_detached, then waits up to
// `limit`, killing it past that): its wait status, or why it did not run.
[[nodiscard]] Result<int, std::string> run_and_wait(const std::filesystem::path& binary,
                                                    const std::vector<std::string>& args,
                                                    const std::filesystem::path& output, std::chrono::milliseconds limit);

// The start time (clock ticks after boot) of a live process; nullopt when
// there is no such process or it is a zombie (it has ended).
[[nodiscard]] std::optional<std::uint64_t> process_start_time(pid_t pid);

// pid is alive and is the process that was recorded.
[[nodiscard]] bool is_same_process(pid_t pid, std::uint64_t start_time);

// Reaps `pid` if it is our child and has ended (so it stops being a zombie)
// and returns its wait status; nullopt otherwise, harmless for any other pid.
std::optional<int> reap_if_ended(pid_t pid);
// "exited with status 1", "killed by signal 11 (Segmentation fault)".
[[nodiscard]] std::string describe_wait_status(int status);

struct StopTarget {
  std::string name;
  pid_t pid = 0;
  std::uint64_t start_time = 0;
};
struct StopReport {
  std::size_t signalled = 0;  // got SIGTERM
  std::size_t killed = 0;     // needed SIGKILL after `grace`
  std::size_t gone = 0;       // already gone, or a different process now has the pid
};
// SIGTERM to each target that is still the same process, then SIGKILL to
// those still running after `grace`; waits (bounded) until they are gone.
StopReport stop_processes(const std::vector<StopTarget>& targets, std::chrono::milliseconds grace);

// The last `n` lines of a text file (empty if unreadable), at most 64 KiB read.
[[nodiscard]] std::string tail_lines(const std::filesystem::path& file, std::size_t n);

// The whole file, at most `limit` bytes of it (logs are polled for lines).
[[nodiscard]] std::string read_file(const std::filesystem::path& file, std::size_t limit = 16 << 20);

// Writes via a temporary file and rename, so readers see the old or the new
// file, never half of one.
[[nodiscard]] bool write_file_atomically(const std::filesystem::path& file, const std::string& text);

}  // namespace conflux::netapp
