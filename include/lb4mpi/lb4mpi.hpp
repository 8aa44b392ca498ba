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

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lb4mpi/options.hpp"
#include "lb4mpi/report.hpp"
#include "lb4mpi/techniques/technique.hpp"
#include "lb4mpi/types.hpp"

namespace lb4mpi {

namespace detail {
struct LoopState;  // the runtime behind a Loop
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
  Loop(MPI_Comm comm, Index first, Index last, const Options& options);
  ~Loop();
  Loop(Loop&&) noexcept;
  Loop& operator=(Loop&&) noexcept;
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;

  /// The next piece of work for this rank, nullopt when the loop has none
  /// left for it. Ends the previous piece (its time counts as work time).
  std::optional<Chunk> next();
  /// Marks the current piece finished without asking for another one
  /// (optional: next() does it too). Used by the C API's DLS_EndChunk.
  void end_chunk();
  /// Collective: waits for all ranks, gathers the report on every rank.
  Report finish();
  /// Collective: the next execution of the same loop, possibly another range.
  void restart(Index first, Index last);

  [[nodiscard]] const Options& options() const;

 private:
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
