// lb4mpi: dynamic loop self-scheduling across the ranks of an MPI job.
//
//   lb4mpi::Options opt = lb4mpi::Options::from_env();
//   lb4mpi::Report r = lb4mpi::parallel_for(MPI_COMM_WORLD, 0, n, opt,
//       [&](lb4mpi::Chunk c) { for (auto i = c.begin; i < c.end(); ++i) work(i); });
//
// Every rank of the communicator calls it with the same range and options.
// The body sees disjoint chunks; together, on all ranks, they cover [first, last)
// exactly once. The report is returned on every rank.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "lb4mpi/options.hpp"
#include "lb4mpi/report.hpp"
#include "lb4mpi/techniques/technique.hpp"
#include "lb4mpi/types.hpp"

/// lb4mpi's C++ interface: parallel_for, Loop and LoopSet (loops.hpp), the
/// options (options.hpp), the report (report.hpp), owned loops over
/// distributed data (stealing.hpp) and run_main (main.hpp).
namespace lb4mpi {

namespace detail {
struct LoopState;   // the runtime behind a Loop
struct LoopAccess;  // the C API's way to a Loop's runtime (src/frontend/loop_access.hpp)
}  // namespace detail

/// A loop in flight on this rank: the start-chunk / end-chunk form.
///
///   lb4mpi::Loop loop(comm, first, last, opt);     // collective
///   while (auto c = loop.next()) { work(*c); }     // next() also ends the previous chunk
///   lb4mpi::Report r = loop.finish();              // collective
///
/// Constructing it is collective over `comm`; bad input throws lb4mpi::Error
/// on every rank. The same Loop can be restarted for the next time step
/// (adaptive techniques keep what they learned, AWF updates its weights).
/// One Loop at a time may be in flight on a communicator (until next()
/// returns no chunk); loops in flight together belong in a lb4mpi::LoopSet.
class LB4MPI_API Loop {
 public:
  /// The loop over [first, last) on the ranks of `comm` (collective).
  Loop(MPI_Comm comm, Index first, Index last, const Options& options);
  ~Loop();
  /// Moves the loop; the moved-from Loop must not be used.
  Loop(Loop&&) noexcept;
  /// Moves the loop; the moved-from Loop must not be used.
  Loop& operator=(Loop&&) noexcept;
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;

  /// The next piece of work for this rank, nullopt when the loop has none
  /// left for it. Ends the previous piece (its time counts as work time).
  std::optional<Chunk> next();
  /// Marks the current piece finished without asking for another one
  /// (optional: next() does it too). Used by the C API's DLS_EndChunk.
  void end_chunk();
  /// Results of the current piece (the chunk next() returned last), as
  /// bytes; several calls append. They travel to the coordinator with the
  /// chunk's completion and are committed there once (robust mode: even
  /// when the chunk ran twice, or its rank failed after reporting it); see
  /// on_commit. docs/ROBUST.md.
  void result(const void* data, std::size_t bytes);
  /// result(data, bytes) of a trivially copyable value's bytes.
  template <class T>
    requires std::is_trivially_copyable_v<T>
  void result(const T& value) {
    result(&value, sizeof value);
  }
  /// Called with each committed piece and its result bytes: on the
  /// coordinator in the centralized and distributed modes and in robust
  /// mode, on the rank that executed the piece in distributed-rma mode
  /// without robust mode and for STATIC. Set it on every rank, before the
  /// first next().
  void on_commit(std::function<void(Chunk piece, const std::byte* data, std::size_t bytes)> commit);
  /// Collective: waits for all ranks, gathers the report on every rank.
  /// Robust mode: the ranks that finished the loop exchange their figures
  /// without a collective call; Report::failed_ranks names the others.
  Report finish();
  /// Collective: the next execution of the same loop, possibly another range.
  void restart(Index first, Index last);

  /// The options the loop was made with.
  [[nodiscard]] const Options& options() const;

 private:
  friend struct detail::LoopAccess;
  explicit Loop(std::unique_ptr<detail::LoopState> state);
  std::unique_ptr<detail::LoopState> state_;
};

/// One-call form: runs `body(Chunk)` on this rank's chunks until the loop is
/// done; collective; returns the report on every rank.
template <class Body>
Report parallel_for(MPI_Comm comm, Index first, Index last, const Options& options, Body&& body) {
  Loop loop(comm, first, last, options);
  while (auto c = loop.next()) std::forward<Body>(body)(*c);
  return loop.finish();
}

/// One-call form with results: `body(Chunk)` returns the chunk's result (a
/// trivially copyable T), which is committed once, by `commit(Chunk, const
/// T&)`, on the coordinator (see Loop::on_commit) — the form robust mode
/// needs to survive failures with every result counted once.
template <class T, class Body, class Commit>
  requires std::is_trivially_copyable_v<T>
Report parallel_for_results(MPI_Comm comm, Index first, Index last, const Options& options, Body&& body,
                            Commit&& commit) {
  Loop loop(comm, first, last, options);
  loop.on_commit([&commit](Chunk piece, const std::byte* data, std::size_t bytes) {
    if (bytes != sizeof(T)) throw Error("lb4mpi: a committed result has the wrong size");
    T value;
    std::memcpy(&value, data, sizeof value);
    commit(piece, static_cast<const T&>(value));
  });
  while (auto c = loop.next()) loop.result(static_cast<T>(body(*c)));
  return loop.finish();
}

/// Collective over `comm`: every rank passes its own validation result
/// (`error`, empty when fine) and a fingerprint of what all ranks must pass
/// alike (see Fingerprint, Options::fingerprint). Returns when every rank is
/// fine and the fingerprints agree; otherwise every rank throws the same
/// lb4mpi::Error: the lowest failing rank's message, or `mismatch` (a
/// default when empty) when the fingerprints differ. One MPI_Allreduce when
/// all is well. What lb4mpi itself does at every loop start; for
/// applications and other front ends (the C API) that check their own
/// arguments collectively.
LB4MPI_API void agree(MPI_Comm comm, const std::string& error, std::uint64_t fingerprint, const std::string& mismatch = {});
/// The same, and when the fingerprints differ, the error names the first
/// rank that differs from rank 0, the first field that differs and both
/// values: "lb4mpi: the ranks disagree on <subject>: minChunk 2 on rank 3, 1
/// on rank 0; ...". `describe` gives (name, value as text) of everything the
/// fingerprint covers, in the same order on every rank; it is called
/// (collectively) only when the fingerprints differ.
LB4MPI_API void agree(MPI_Comm comm, const std::string& error, std::uint64_t fingerprint,
                      const std::function<std::vector<std::pair<std::string, std::string>>()>& describe,
                      const std::string& subject);

}  // namespace lb4mpi
