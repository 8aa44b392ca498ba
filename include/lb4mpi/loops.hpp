// Several loops scheduled at once (`003` §4): one synchronization point per
// time step instead of one per loop.
//
//   std::vector<lb4mpi::LoopSpec> specs = {{0, n1, opt1}, {0, n2, opt2}};
//   lb4mpi::LoopSet set(MPI_COMM_WORLD, specs);           // collective
//   while (auto p = set.next())                           // a piece of any loop
//     body[p->loop](p->chunk);
//   std::vector<lb4mpi::Report> reports = set.finish();   // collective
//
// next() picks the lowest-numbered loop that has a piece for this rank right
// now, so a rank works through the loops in order and moves on to a later
// loop only while an earlier one has nothing for it; it waits only when no
// loop has anything. The form of `003` — the caller targets a loop:
//
//   while (!set.terminated())
//     for (int l = 0; l < set.size(); ++l)
//       if (auto c = set.next(l)) body[l](*c);           // never waits for loop l
//
// next(l) does not wait: when loop l has no piece for this rank right now
// it returns nullopt at once and the rank moves on to another loop (no idle
// probing, unless Options::idle_probing). terminated() waits for the next
// message only when a whole round over the loops found nothing to do. Each
// loop has its own range, technique and mode; any mix is allowed.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "lb4mpi/options.hpp"
#include "lb4mpi/report.hpp"
#include "lb4mpi/types.hpp"

namespace lb4mpi {

namespace detail {
struct LoopSetState;  // the runtime behind a LoopSet
}  // namespace detail

/// A piece of one loop of a LoopSet.
struct LoopPiece {
  int loop = 0;  ///< the loop's number: its index in the LoopSet's specs
  Chunk chunk;   ///< the piece of work
};

/// One loop of a LoopSet: its range and options.
struct LoopSpec {
  Index first = 0;  ///< first iteration
  Index last = 0;  ///< half-open: [first, last)
  Options options;  ///< the loop's options
};

/// Several loops in flight at once on one communicator (asynchronous
/// multi-loop, `003` §4): a rank takes work from whichever loop has some.
class LB4MPI_API LoopSet {
 public:
  /// Collective over `comm`; bad input throws lb4mpi::Error on every rank.
  LoopSet(MPI_Comm comm, const std::vector<LoopSpec>& loops);
  ~LoopSet();
  /// Moves the set; the moved-from LoopSet must not be used.
  LoopSet(LoopSet&&) noexcept;
  /// Moves the set; the moved-from LoopSet must not be used.
  LoopSet& operator=(LoopSet&&) noexcept;

  /// The number of loops.
  [[nodiscard]] int size() const;
  /// The next piece of any loop for this rank, preferring the lowest loop
  /// number; waits when no loop has one right now; nullopt when every loop
  /// is done for this rank. Ends the previous piece.
  std::optional<LoopPiece> next();
  /// The next piece of loop `l` for this rank; nullopt when it has none right
  /// now or the loop is done for it. Ends the previous piece.
  std::optional<Chunk> next(int l);
  /// Ends the current piece without asking for another (optional).
  void end_chunk();
  /// Results of the current piece (the one next() returned last, of
  /// whichever loop), as bytes; several calls append. They travel with the
  /// chunk's completion and are committed once on the loop's coordinator
  /// (robust mode: even when the chunk ran twice or its rank failed after
  /// reporting it); see on_commit and Loop::result. docs/ROBUST.md.
  void result(const void* data, std::size_t bytes);
  /// result(data, bytes) of a trivially copyable value's bytes.
  template <class T>
    requires std::is_trivially_copyable_v<T>
  void result(const T& value) {
    result(&value, sizeof value);
  }
  /// Called with each committed piece of loop `l` and its result bytes, where
  /// Loop::on_commit is (the coordinator; robust mode: the final one). Set
  /// it on every rank, before the first next().
  void on_commit(int l, std::function<void(Chunk piece, const std::byte* data, std::size_t bytes)> commit);
  /// Whether loop `l` is done for this rank.
  [[nodiscard]] bool done(int l) const;
  /// True when every loop is done for this rank.
  bool terminated();
  /// Collective: one report per loop, on every rank.
  std::vector<Report> finish();
  /// Collective: the next time step; one [first, last) per loop.
  void restart(const std::vector<std::pair<Index, Index>>& ranges);

 private:
  std::unique_ptr<detail::LoopSetState> state_;
};

/// One-call form. `asynchronous`: all loops in flight together, one
/// synchronization at the end; otherwise each loop runs to its end (and
/// synchronizes) before the next starts. bodies[l] receives loop l's chunks.
LB4MPI_API std::vector<Report> run_loops(MPI_Comm comm, const std::vector<LoopSpec>& loops,
                                         const std::vector<std::function<void(Chunk)>>& bodies, bool asynchronous = true);

}  // namespace lb4mpi
