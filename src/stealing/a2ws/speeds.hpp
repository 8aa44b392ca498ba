// Per-rank speed factors: heterogeneous nodes emulated on one machine
// (`002` Table 2: nodes of 1, 2, 4, 8, 16 and 24 cores). Pure.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace lb4mpi::a2ws {

/// The speed of every rank, relative to the fastest (in (0, 1]), from
///   ""                 every rank at full speed
///   "table2"           `002` Table 2: the ranks cycle through the cores of
///                      configuration C1, 24,24,16,8,4,2,1,1 (C2..C5 are the
///                      same mix at 16..128 nodes: P = 16 is C2, and so on)
///   "a,b,c,..."        positive numbers (cores, or any relative speeds),
///                      cycled when there are fewer than `ranks`
/// each divided by the largest. Throws std::invalid_argument with a message
/// naming the valid forms.
std::vector<double> parse_speeds(std::string_view text, int ranks);

/// How long a task that computed for `work` seconds takes on a rank of
/// relative speed `speed` (`work / speed`): what the emulation waits for.
inline double stretched(double work, double speed) { return speed > 0.0 ? work / speed : work; }

/// "1,1,0.667,..." (for reports).
std::string format_speeds(const std::vector<double>& speeds);

}  // namespace lb4mpi::a2ws
