// owned_for behind its templates: the collective start (every rank valid,
// the same options and data shapes, ranges that do not overlap), the
// balancer's engine, and the report from every rank's figures.
#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "lb4mpi/stealing.hpp"
#include "run.hpp"
#include "runtime/agreement.hpp"
#include "runtime/channel.hpp"
#include "runtime/mpi.hpp"
#include "stealing/engine.hpp"
#include "runtime/nodes.hpp"
#include "runtime/waiting.hpp"
#include "trace/recorder.hpp"
#include "writers.hpp"  // src/trace: the iteration CSV writer

namespace lb4mpi {
namespace {

st::Config config_of(const StealOptions& o) {
  st::Config c;
  c.balancer = o.balancer;
  c.amount = o.amount;
  c.victim = o.victim;
  c.chunking = o.chunking;
  c.params = o.params;
  c.coordinator = o.coordinator;
  c.ranks_per_node = o.ranks_per_node;
  c.break_after = o.break_after;
  c.seed = o.seed;
  c.speeds = o.speeds;
  c.radius = o.radius;
  c.preemptive = o.preemptive;
  c.record_chunks = o.iterations_info;
  return c;
}

// `000` Table 4.2's iteration CSV: what the trace layer writes for the
// other loops, from the chunks this rank executed.
Options iterations_output(const StealOptions& o) {
  Options out;
  out.iterations_info = o.iterations_info;
  out.iterations_dir = o.iterations_dir.empty() ? "lb4mpi_iterations" : o.iterations_dir;
  return out;
}

std::string write_iterations(const StealOptions& o, const st::Run& run, std::int32_t loop) {
  std::vector<trace::TraceRecord> records;
  for (const st::Run::ChunkRecord& c : run.chunk_records()) {
    trace::TraceRecord r;
    r.rank = run.rank();
    r.loop = loop;
    r.start = c.start;
    r.size = c.size;
    r.t_request = r.t_begin = c.t_begin;
    r.t_end = c.t_end;
    records.push_back(r);
  }
  try {
    trace::write_iterations(iterations_output(o).iterations_dir, run.rank(), o.chunking.value_or(kEvenSplit),
                            records);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

// This rank's own checks, "" when fine.
std::string validate(const OwnedLoopArgs& a, const StealOptions& o, const rt::Channel& channel, int ranks) {
  if (!a.error.empty()) return a.error;
  try {
    o.validate(ranks);
  } catch (const Error& e) {
    return std::string("lb4mpi: ") + e.what();
  }
  if (channel.busy != nullptr) {
    return "lb4mpi: another loop on this communicator is still in flight; run it to its end before an owned loop";
  }
  if (a.last < a.first) {
    return "lb4mpi: invalid owned range [" + std::to_string(a.first) + ", " + std::to_string(a.last) +
           "): first must not exceed last";
  }
  const Index n = a.last - a.first;
  const auto data = [&a, n](const char* what, const Mover* m, const std::string& error) -> std::string {
    if (m == nullptr) return {};
    if (!error.empty()) return std::string("lb4mpi: bad ") + what + ": " + error;
    if (m->items() != n) {
      return std::string("lb4mpi: the ") + what + " describe " + std::to_string(m->items()) +
             " items, but the rank owns " + std::to_string(n) + " iterations [" + std::to_string(a.first) + ", " +
             std::to_string(a.last) + ") (one item per iteration)";
    }
    return {};
  };
  if (std::string e = data("input data", a.in, a.in_error); !e.empty()) return e;
  if (std::string e = data("results", a.out, a.out_error); !e.empty()) return e;
  return {};
}

// Every rank's range (one allgather); the same error on every rank when two overlap.
std::vector<st::Range> gather_ranges(MPI_Comm comm, Index first, Index last, int ranks) {
  const std::int64_t mine[2] = {first, last};
  std::vector<std::int64_t> all(2 * static_cast<std::size_t>(ranks));
  rt::allgather(mine, 2, MPI_INT64_T, all.data(), comm);
  std::vector<st::Range> out(static_cast<std::size_t>(ranks));
  for (std::size_t r = 0; r < out.size(); ++r) out[r] = st::Range{all[2 * r], all[2 * r + 1]};
  std::vector<int> order(out.size());
  for (std::size_t r = 0; r < order.size(); ++r) order[r] = static_cast<int>(r);
  std::sort(order.begin(), order.end(), [&out](int x, int y) {
    return out[static_cast<std::size_t>(x)].first < out[static_cast<std::size_t>(y)].first;
  });
  int previous = -1;
  for (int r : order) {
    const st::Range& range = out[static_cast<std::size_t>(r)];
    if (range.size() == 0) continue;
    if (previous >= 0 && out[static_cast<std::size_t>(previous)].last > range.first) {
      const st::Range& p = out[static_cast<std::size_t>(previous)];
      throw Error("lb4mpi: the owned ranges of ranks " + std::to_string(std::min(previous, r)) + " and " +
                  std::to_string(std::max(previous, r)) + " overlap ([" + std::to_string(p.first) + ", " +
                  std::to_string(p.last) + ") and [" + std::to_string(range.first) + ", " +
                  std::to_string(range.last) + ")); every iteration must have one owner");
    }
    previous = r;
  }
  return out;
}

struct Figures {
  rt::RankFigures loop;
  RankSteals steals;
};

StealReport report_of(const std::vector<Figures>& all, const std::vector<st::Range>& ranges, const StealOptions& o) {
  StealReport r;
  r.balancer = o.balancer;
  r.amount = o.amount;
  r.victim = o.victim;
  Report& loop = r.loop;
  loop.technique = o.amount.is_ratio ? kEvenSplit : o.amount.technique;
  Index lo = 0, hi = 0;
  bool any = false;
  for (const st::Range& g : ranges) {
    if (g.size() == 0) continue;
    lo = any ? std::min(lo, g.first) : g.first;
    hi = any ? std::max(hi, g.last) : g.last;
    any = true;
  }
  loop.first = lo;
  loop.last = hi;
  for (const Figures& f : all) {
    RankReport rr;
    rr.iterations = f.loop.iterations;
    rr.chunks = f.loop.chunks;
    rr.work_time = f.loop.work_time;
    rr.overhead = f.loop.overhead;
    rr.serve_time = f.loop.serve_time;
    rr.finish_time = f.loop.finish_time;
    loop.ranks.push_back(rr);
    loop.t_par = std::max(loop.t_par, f.loop.exit_time);
    r.ranks.push_back(f.steals);
  }
  return r;
}

}  // namespace

StealReport run_owned_loop(const OwnedLoopArgs& a, const StealOptions& options) {
  rt::Channel& channel = rt::private_channel(a.comm, 0);  // finds the node's ranks and cores
  // The owned loop's waits (a thief's, its end's) follow LB4MPI_WAIT too;
  // they kept the policy of the last loop, or Yield, whatever the node.
  rt::set_wait_policy(detail::wait_policy_of(options.wait));
  const MPI_Comm comm = channel.comm;
  int rank = 0, ranks = 1;
  rt::check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  rt::check_mpi(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");

  std::string error = validate(a, options, channel, ranks);
  if (error.empty()) error = detail::check_environment(rank);
  if (error.empty() && options.iterations_info) error = trace::check_outputs(iterations_output(options), rank);
  Fingerprint h;
  h.add(options.fingerprint()).add(a.in != nullptr).add(a.out != nullptr);
  if (a.in != nullptr && error.empty()) h.add(a.in->fingerprint());
  if (a.out != nullptr && error.empty()) h.add(a.out->fingerprint());
  rt::agree(
      comm, error, h.value(),
      [&] {
        rt::Fields f = options.agreed_fields();
        f.emplace_back("input data", a.in != nullptr ? a.in->describe() : "none");
        f.emplace_back("results", a.out != nullptr ? a.out->describe() : "none");
        return f;
      },
      "the owned loop");
  std::vector<st::Range> ranges = gather_ranges(comm, a.first, a.last, ranks);

  // Executions start collectively, in the same order on every rank: the same epoch.
  const std::int32_t epoch = channel.next_epoch;
  channel.next_epoch = channel.next_epoch == INT32_MAX ? 1 : channel.next_epoch + 1;
  const st::Config config = config_of(options);
  std::unique_ptr<st::Engine> engine = st::EngineRegistry::instance().find(options.balancer)(config);
  rt::ProgressEngine progress;
  st::Run run(comm, epoch, config, ranges, a.in, a.out, st::Body{a.body, a.body_state}, progress);
  if (engine->needs_nodes(config)) run.nodes = rt::node_map(comm, config.ranks_per_node);
  static const int kBusy = 0;  // marks the channel while the owned loop runs
  channel.busy = &kBusy;
  try {
    engine->run(run);
  } catch (...) {
    channel.busy = nullptr;
    throw;
  }
  channel.busy = nullptr;
  // Owned loops are numbered in the order they start (the same on every rank).
  static std::int32_t next_loop = 0;
  const std::int32_t loop = next_loop++;
  if (options.iterations_info) rt::agree(comm, write_iterations(options, run, loop), 0);

  Figures mine{run.loop_figures(), run.steal_figures()};
  mine.loop.overhead = std::max(0.0, mine.loop.exit_time - mine.loop.work_time);
  std::vector<Figures> all(static_cast<std::size_t>(ranks));
  rt::allgather(&mine, static_cast<int>(sizeof(Figures)), MPI_BYTE, all.data(), comm);
  return report_of(all, ranges, options);
}

// ---- StealReport

namespace {
template <class T>
T total(const std::vector<RankSteals>& ranks, T RankSteals::*field) {
  T sum{};
  for (const RankSteals& r : ranks) sum += r.*field;
  return sum;
}
}  // namespace

Index StealReport::steal_attempts() const { return total(ranks, &RankSteals::steal_attempts); }
Index StealReport::successful_steals() const { return total(ranks, &RankSteals::steals); }
Index StealReport::iterations_stolen() const { return total(ranks, &RankSteals::iterations_stolen); }

double StealReport::send_time_per_steal() const {
  const Index n = successful_steals();
  return n > 0 ? total(ranks, &RankSteals::send_time) / static_cast<double>(n) : 0.0;
}

double StealReport::receive_time_per_steal() const {
  const Index n = successful_steals();
  return n > 0 ? total(ranks, &RankSteals::receive_time) / static_cast<double>(n) : 0.0;
}

}  // namespace lb4mpi
