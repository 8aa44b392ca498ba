// Smart stealing of A2WS (`002` §2.2): how many tasks a rank should steal,
// from whom, and when (Eq. 2-10, preemptive stealing §2.2.1). Pure
// arithmetic on what a rank knows of its subsystem; no MPI.
//
// Units: t_j is a time per task (seconds), so a rank's run time for n tasks
// is n * t_j. (Eq. 6 of `002` prints U(S) = (n_k + S) / t_k, which is a time
// only when t_k is read as a speed; Eq. 2-5 and 9-10 use t_j as a time per
// task, and so does this file throughout: U(S) = (n_k + S) * t_k.)
//
// n_j. `002` counts in n_j the tasks j executed and those it still has, so
// that n_j t_j is j's finish time if j computed without a pause since the
// start. lb4mpi's engine passes the tasks j still has to run (held and
// running): then n_j t_j is the time j still needs, and the equations
// equalize finish times from now on, whatever each rank lost to waiting,
// stealing and sharing a core. The equations are the same; only what n_j
// counts differs. (With executed tasks counted, a thief that had waited
// found a pair "balanced" by n t while its victim still held 59 tasks and
// left 1.1 s early: docs/A2WS.md.)
#pragma once
#include <cstdint>
#include <optional>
#include <span>

namespace lb4mpi::a2ws {

/// What one rank knows of rank j of its subsystem (`002` §2.1).
struct PeerView {
  double tasks = 0.0;      ///< n_j: tasks of j still to run (see the header)
  double task_time = 0.0;  ///< t_j: j's mean task run time [s]; 0: no task finished yet
  double left = 0.0;       ///< tasks in j's deque that a thief may take
};

/// t_j for the equations: the measured mean, or, before j finished its first
/// task, the elapsed wall time of the loop (preemptive stealing, `002`
/// §2.2.1: a rank that has not finished a task is at most that fast).
/// Never 0: at least `floor` (a tiny positive time).
double estimated_task_time(const PeerView& p, double elapsed, double floor = 1e-9);

/// Eq. 2: t_ideal = N / T, N = sum n_j, T = sum 1/t_j.
double ideal_runtime(std::span<const double> tasks, std::span<const double> task_times);

/// Eq. 3: n_ideal,i = N / (t_i T).
double ideal_tasks(double total_tasks, double speed_sum, double task_time_i);

/// Eq. 4 (all ranks) or Eq. 5 (the 2R+1 ranks of a subsystem, whichever the
/// spans hold): S_i = sum n_j / (t_i sum 1/t_j) - n_i. Positive: rank i
/// should take S_i tasks from others; negative: others should take -S_i.
double steal_rate(std::span<const double> tasks, std::span<const double> task_times, std::size_t i);

/// Eq. 10 (the simplified Eq. 9): the tasks thief i should take from victim
/// j so that the two finish together: (n_i + n_j) t_j / (t_i + t_j) - n_i.
double pair_rate(double n_i, double t_i, double n_j, double t_j);

/// Eq. 6: the run time of a rank with n tasks of time t after receiving s
/// tasks (s < 0: giving -s away): (n + s) * t.
double pair_runtime(double n, double t, double s);

/// Eq. 8: the pair's expected run time when thief i takes s tasks of victim j:
/// max(U(-s, j), U(s, i)).
double pair_makespan(double n_i, double t_i, double n_j, double t_j, double s);

/// Eq. 7: `s` rounded down or up, whichever gives the pair the smaller
/// Eq. 8 run time (up on a tie). Negative values round towards a steal of 0
/// or less; the result is what a thief would take.
std::int64_t round_rate(double s, double n_i, double t_i, double n_j, double t_j);

/// How a victim was chosen (`002` §2.2.2).
enum class Criterion : std::uint8_t {
  ClosestRate,  ///< S_i > 0 and S_j < 0: the victim whose surplus is closest to the thief's need
  InPair,       ///< the subsystem looked balanced; pair-wise Eq. 10 found a steal that helps the pair
};

/// A steal to attempt.
struct Choice {
  std::size_t victim = 0;   ///< index into the subsystem
  std::int64_t amount = 0;  ///< tasks to take (>= 1, at most the victim's `left`)
  Criterion criterion = Criterion::ClosestRate;
};

/// Victim selection of `002` §2.2.2 for thief `self` of a subsystem whose
/// views (with task times already estimated, all > 0) are `peers`:
///   1. closest rate: victims j with S_j < 0 (Eq. 5) and tasks left, while
///      S_i > 0; amount min(S_i, -S_j) rounded by Eq. 7 for the pair,
///      weight 1 / (1 + |S_i + S_j|) (opposite rates of equal size fit best);
///   2. otherwise in-pair comparison: every j with tasks left, amount Eq. 10
///      rounded by Eq. 7, weight the amount.
/// Amounts are capped at half the victim's `left` (rounded up; lb4mpi's
/// guard, below) and by worth_stealing;
/// candidates with amount < 1 drop out. `u` in [0, 1) draws among the
/// candidates by weight (so that thieves spread over victims). nullopt: no
/// steal helps.
/// `min_saving`: a steal must also shorten the pair's run time by at least
/// that fraction of it (saves_a_task); 0 for a rank whose deque is empty.
std::optional<Choice> select_victim(std::span<const PeerView> peers, std::size_t self, double u,
                                    double min_saving = 0.0);

/// lb4mpi's guard on the amount: at most half of what the victim has left
/// to steal (rounded up), where `002` allows all of it. The equations
/// trust the published times of the moment; on lb4mpi-pisolver
/// --imbalance 30 at P = 2, where the overloaded rank's first tasks ran
/// 2.7 times slower than later ones, the light rank's first steal took up
/// to 14 500 of the heavy rank's ~17 000 remaining iterations and the
/// heavy rank stole back; 5 of 60 rounds then took 1.1-1.2 times as long as
/// no balancing (issue 34). Half per steal keeps every steal from
/// overshooting by more than the estimate's error allows; a thief that
/// needs more steals again. Measured: 0 of 60 rounds slower than none, and
/// lb4mpi-seismic (speeds of `002`'s C1, 8 x 480) 1.48 s against 1.57 s.
/// (smart.cpp: capped)
///
/// min_saving of a preemptive steal (the thief still holds tasks): 10 % of
/// the pair's run time. Task times measured a task at a time move by more
/// than a task: on lb4mpi-pisolver --imbalance 30 (40 000 tasks of 2-8 us)
/// A2WS at P = 2 made 300-600 preemptive steals per run, the overloaded
/// rank taking back 11 000-31 000 iterations, and was slower than relayed
/// stealing (issue 34). A rank that runs dry still steals whatever saves a task.
inline constexpr double kPreemptiveMinSaving = 0.10;

/// lb4mpi's guard on Eq. 7's pair-wise rounding: the largest d' <= d such
/// that the thief, with n_i + d' tasks of time t_i, finishes no later than
/// the rest of its subsystem would finish all it holds but those d' (Eq. 2
/// over the others: (rest_tasks - d') / rest_speed, rest_speed = sum of
/// their 1/t_j). The pair alone (Eq. 8) ignores that other thieves relieve
/// the victim too: a 24 times slower rank rounded a share of 0.5 task up
/// to one and finished its loop 1.8 s after everybody else (docs/A2WS.md).
std::int64_t worth_stealing(std::int64_t d, double n_i, double t_i, double rest_tasks, double rest_speed);

/// lb4mpi's threshold: `d` when a steal of d tasks shortens the pair's
/// run time (Eq. 8 against max(n_i t_i, n_j t_j)) by at least one task of
/// the faster of the two, else 0. Near balance the estimates move with every task's
/// noise: without it, two ranks whose remaining times were equal within a
/// task took 1-5 tasks from each other after every task, a steal (an atomic,
/// a get, the items and the results) each time (issue 34).
/// With `min_saving` > 0, by at least that fraction of the pair's run time too.
std::int64_t saves_a_task(std::int64_t d, const PeerView& thief, const PeerView& victim, double min_saving = 0.0);

}  // namespace lb4mpi::a2ws
