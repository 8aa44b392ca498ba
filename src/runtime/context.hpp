// What an execution model works with on a rank: its communicator and
// progress engine, the configuration, and the Meter that accounts for the
// time it spends (shared with the Execution that drives it).
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/channel.hpp"
#include "runtime/clock.hpp"
#include "runtime/config.hpp"
#include "runtime/observer.hpp"
#include "runtime/progress.hpp"
#include "runtime/results.hpp"

namespace lb4mpi::rt {

/// Where the time of a rank goes, without a clock read that the
/// configuration does not need. When every acquire is timed (adaptive
/// techniques, tracing: `whole_acquires`), the Execution times it as a whole
/// and the model's own spans only feed serve_time; otherwise the model times
/// what communicates or waits — local chunk calculations (nanoseconds) then
/// count as work.
class Meter {
 public:
  void reset(bool whole_acquires, double delay_us, ChunkObserver* observer) {
    whole_ = whole_acquires;
    delay_us_ = delay_us;
    observer_ = observer;
    calculations = 0;
    overhead = serve_time = 0.0;
    first_read_ = -1.0;
  }
  [[nodiscard]] bool whole_acquires() const { return whole_; }

  /// The clock, remembering the first reading of the current acquire (the
  /// end of the rank's previous piece when it had one).
  double now() {
    const double t = clock_now();
    if (first_read_ < 0.0) first_read_ = t;
    return t;
  }
  void begin_acquire() { first_read_ = -1.0; }
  [[nodiscard]] double first_read() const { return first_read_; }

  /// A chunk size calculated on this rank (`001` §6 delay injection lands here).
  void calculation() {
    ++calculations;
    if (delay_us_ > 0.0) {
      const double t0 = now();
      spin_for_us(delay_us_);
      spent(t0, clock_now());
    }
  }
  /// [t0, t1] went to communicating or waiting.
  void spent(double t0, double t1) {
    if (!whole_) overhead += t1 - t0;
  }
  /// [t0, t1] of an acquire went to neither: the coordinator waited for the
  /// end of the loop with nothing to handle (idle, docs/METRICS.md). When
  /// the Execution times the acquire as a whole, it is taken out again.
  void idle(double t0, double t1) {
    if (whole_) overhead -= t1 - t0;
  }
  /// Hierarchical mode: a global chunk [begin, begin + size) (relative to the
  /// loop's first iteration) came for this leader's node, obtained from t0
  /// to t1 (clock_now). Seen by the observer only.
  void node_chunk(Index begin, Index size, double t0, double t1) const {
    if (observer_ != nullptr) {
      observer_->node_chunk(first + begin, size, t0 - observer_->origin(), t1 - observer_->origin());
    }
  }
  [[nodiscard]] bool observed() const { return observer_ != nullptr; }
  /// [t0, t1] went to serving other ranks (a coordinator): handling requests.
  void served(double t0, double t1) {
    if (first_read_ < 0.0 || t0 < first_read_) first_read_ = t0;  // t0 may come from the progress engine
    serve_time += t1 - t0;
    spent(t0, t1);
    if (observer_ != nullptr) observer_->serve(t0 - observer_->origin(), t1 - observer_->origin());
  }

  Index calculations = 0;
  Index first = 0;  ///< the loop's first iteration (absolute), for the observer
  double overhead = 0.0;
  double serve_time = 0.0;

 private:
  bool whole_ = false;
  double delay_us_ = 0.0;
  ChunkObserver* observer_ = nullptr;
  double first_read_ = -1.0;
};

/// The chunks this rank reported, with their serialized results, kept for
/// a successor coordinator (runtime/recovery/failover). Flat, so that a
/// chunk kept costs no allocation once the storage has grown.
struct KeptChunks {
  struct Kept {
    Chunk chunk;
    std::int64_t bytes = -1;  ///< its results' size in `data` (-1: it had none)
    std::size_t offset = 0;   ///< where they start there
  };
  std::vector<Kept> chunks;
  std::vector<std::byte> data;

  /// `chunk`, with `n` bytes of results at `results` when `has`.
  void add(Chunk chunk, bool has, const std::byte* results, std::size_t n) {
    chunks.push_back(Kept{chunk, has ? static_cast<std::int64_t>(n) : -1, data.size()});
    if (has) data.insert(data.end(), results, results + n);
  }
  /// A part of a batch: joins the last chunk kept as one range when
  /// neither has results and they are adjacent.
  void add_part(Chunk part, bool has, const std::vector<std::byte>& results) {
    if (!has && !chunks.empty() && chunks.back().bytes < 0 && chunks.back().chunk.end() == part.begin) {
      chunks.back().chunk.size += part.size;
      return;
    }
    add(part, has, results.data(), results.size());
  }
  [[nodiscard]] const std::byte* results_of(const Kept& k) const { return data.data() + k.offset; }
  void clear() {
    chunks.clear();
    data.clear();
  }
};

/// The environment of an execution model on this rank.
struct Context {
  Channel* channel = nullptr;
  MPI_Comm comm = MPI_COMM_NULL;  ///< channel->comm
  int rank = 0;
  int size = 1;
  ProgressEngine* engine = nullptr;
  Meter* meter = nullptr;
  ExecConfig config;
  std::int32_t epoch = 0;  ///< the current execution's message epoch (same on every rank)
  ResultStore* results = nullptr;  ///< what the rank attached to its chunks (sent, committed)

  [[nodiscard]] bool is_coordinator() const { return rank == config.coordinator; }
  /// Robust mode (the recovery unit, runtime/recovery/): every wait on
  /// another rank is bounded by `patience()` seconds, and a send to a rank
  /// that may have failed is never waited for without a deadline.
  [[nodiscard]] bool bounded() const { return config.robust; }
  [[nodiscard]] double patience() const { return config.robust_timeout; }
  /// Recovery: the chunks this rank reported are kept here (nullptr: not kept).
  KeptChunks* kept = nullptr;
  /// Recovery: a failover message arrived; the roles give up their
  /// coordinator at their next check (throwing CoordinatorLost).
  bool takeover = false;
  /// Recovery, loops in flight together: a copy (a chunk out elsewhere)
  /// waits while another loop of the set may have original work — the
  /// roles answer NotNow instead of beginning one, and say so in
  /// copy_deferred (Execution::poll).
  bool copies_later = false;
  bool copy_deferred = false;
  /// Recovery: extra seconds of patience until the coordinator is first
  /// heard of (a successor collects the survivors' state first).
  double grace = 0.0;
  /// Recovery: per rank, known to have failed — shared by the loops of a
  /// set (a rank failed in one loop is failed in all), or nullptr.
  std::vector<char>* known_failed = nullptr;
  [[nodiscard]] bool known_to_have_failed(int r) const {
    return known_failed != nullptr && (*known_failed)[static_cast<std::size_t>(r)] != 0;
  }
};

}  // namespace lb4mpi::rt
