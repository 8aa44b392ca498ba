// Smart stealing of A2WS (`002` §2.2, Eq. 2-10): see a2ws/smart.hpp.
#include "a2ws/smart.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace lb4mpi::a2ws {

double estimated_task_time(const PeerView& p, double elapsed, double floor) {
  const double t = p.task_time > 0.0 ? p.task_time : elapsed;  // §2.2.1
  return std::max(t, floor);
}

namespace {

double sum(std::span<const double> xs) {
  double s = 0.0;
  for (double x : xs) s += x;
  return s;
}

// T of Eq. 2: the system's speed in tasks per second.
double speed_sum(std::span<const double> task_times) {
  double s = 0.0;
  for (double t : task_times) s += 1.0 / t;
  return s;
}

}  // namespace

double ideal_runtime(std::span<const double> tasks, std::span<const double> task_times) {
  return sum(tasks) / speed_sum(task_times);  // Eq. 2
}

double ideal_tasks(double total_tasks, double speeds, double task_time_i) {
  return total_tasks / (task_time_i * speeds);  // Eq. 3
}

double steal_rate(std::span<const double> tasks, std::span<const double> task_times, std::size_t i) {
  // Eq. 4 over all ranks, Eq. 5 over a subsystem: the same sums over what the spans hold.
  return ideal_tasks(sum(tasks), speed_sum(task_times), task_times[i]) - tasks[i];
}

double pair_rate(double n_i, double t_i, double n_j, double t_j) {
  return (n_i + n_j) * t_j / (t_j + t_i) - n_i;  // Eq. 10
}

double pair_runtime(double n, double t, double s) { return (n + s) * t; }  // Eq. 6

double pair_makespan(double n_i, double t_i, double n_j, double t_j, double s) {
  return std::max(pair_runtime(n_j, t_j, -s), pair_runtime(n_i, t_i, s));  // Eq. 8
}

std::int64_t round_rate(double s, double n_i, double t_i, double n_j, double t_j) {
  const double lo = std::floor(s);
  const double hi = std::ceil(s);
  // Eq. 7: the floor only when it is strictly better for the pair.
  const double d = pair_makespan(n_i, t_i, n_j, t_j, lo) < pair_makespan(n_i, t_i, n_j, t_j, hi) ? lo : hi;
  return static_cast<std::int64_t>(d);
}

namespace {

struct Candidate {
  std::size_t victim;
  std::int64_t amount;
  double weight;
};

std::optional<Choice> draw(const std::vector<Candidate>& cands, double u, Criterion how) {
  if (cands.empty()) return std::nullopt;
  double total = 0.0;
  for (const Candidate& c : cands) total += c.weight;
  double x = std::clamp(u, 0.0, 1.0) * total;
  for (const Candidate& c : cands) {
    if (x < c.weight) return Choice{c.victim, c.amount, how};
    x -= c.weight;
  }
  return Choice{cands.back().victim, cands.back().amount, how};  // u rounding at the top
}

// At most half of what the victim has left (rounded up; smart.hpp), at least 0.
std::int64_t capped(std::int64_t amount, const PeerView& v) {
  const auto left = static_cast<std::int64_t>(std::floor(std::max(v.left, 0.0)));
  return std::clamp<std::int64_t>(amount, 0, (left + 1) / 2);
}

}  // namespace

std::int64_t worth_stealing(std::int64_t d, double n_i, double t_i, double rest_tasks, double rest_speed) {
  // The thief's finish with d more tasks against the time the others of its
  // subsystem would need for all they hold minus those d (Eq. 2 without it).
  while (d >= 1 && rest_speed > 0.0 &&
         pair_runtime(n_i, t_i, static_cast<double>(d)) > (rest_tasks - static_cast<double>(d)) / rest_speed) {
    --d;
  }
  return d;
}

std::int64_t saves_a_task(std::int64_t d, const PeerView& thief, const PeerView& victim, double min_saving) {
  if (d < 1) return d;
  const double before = std::max(thief.tasks * thief.task_time, victim.tasks * victim.task_time);
  const double after = pair_makespan(thief.tasks, thief.task_time, victim.tasks, victim.task_time, static_cast<double>(d));
  const double needed = std::max(std::min(thief.task_time, victim.task_time), min_saving * before);
  return before - after >= needed ? d : 0;
}

std::optional<Choice> select_victim(std::span<const PeerView> peers, std::size_t self, double u,
                                    double min_saving) {
  const std::size_t m = peers.size();
  std::vector<double> n(m), t(m);
  double rest_tasks = 0.0, rest_speed = 0.0;
  for (std::size_t j = 0; j < m; ++j) {
    n[j] = peers[j].tasks;
    t[j] = peers[j].task_time;
    if (j != self) {
      rest_tasks += n[j];
      rest_speed += 1.0 / t[j];
    }
  }
  const PeerView& me = peers[self];
  const auto amount = [&](double s, std::size_t j) {
    const std::int64_t d = capped(round_rate(s, me.tasks, me.task_time, n[j], t[j]), peers[j]);
    return saves_a_task(worth_stealing(d, me.tasks, me.task_time, rest_tasks, rest_speed), me, peers[j],
                        min_saving);
  };
  std::vector<Candidate> cands;
  // 1. Closest rate (Eq. 5 for the thief and for each victim).
  const double s_i = steal_rate(n, t, self);
  if (s_i > 0.0) {
    for (std::size_t j = 0; j < m; ++j) {
      if (j == self || peers[j].left < 1.0) continue;
      const double s_j = steal_rate(n, t, j);
      if (s_j >= 0.0) continue;
      const std::int64_t d = amount(std::min(s_i, -s_j), j);
      if (d >= 1) cands.push_back({j, d, 1.0 / (1.0 + std::abs(s_i + s_j))});
    }
    if (!cands.empty()) return draw(cands, u, Criterion::ClosestRate);
  }
  // 2. In-pair comparison (Eq. 10 rounded by Eq. 7).
  for (std::size_t j = 0; j < m; ++j) {
    if (j == self || peers[j].left < 1.0) continue;
    const std::int64_t d = amount(pair_rate(me.tasks, me.task_time, n[j], t[j]), j);
    if (d >= 1) cands.push_back({j, d, static_cast<double>(d)});
  }
  return draw(cands, u, Criterion::InPair);
}

}  // namespace lb4mpi::a2ws
