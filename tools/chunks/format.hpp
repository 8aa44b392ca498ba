// Output helpers of lb4mpi-chunks: run-length compression of a chunk-size
// sequence, summary figures, CSV, the one-technique listing and the
// all-techniques overview. No MPI, no command-line parsing.
#pragma once
#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "lb4mpi/types.hpp"

namespace lb4mpi::chunks_tool {

/// `count` consecutive chunks of the same `size`.
struct Run {
  Index size = 0;
  Index count = 0;
};

/// Consecutive equal sizes merged: 17,17,17,14 -> {17 x3}, {14 x1}.
std::vector<Run> runs(const std::vector<Chunk>& chunks);

/// "17" for a single chunk, "17 x58" for 58 chunks of 17.
std::string format_run(const Run& run);

/// All runs joined by ", " and wrapped at `width` columns, every line
/// starting with `indent` spaces.
std::string format_runs_wrapped(const std::vector<Run>& runs, std::size_t width,
                                std::size_t indent);

/// The runs joined by ", ", shortened to at most `width` characters as
/// "first, second, ..., last" when they do not fit.
std::string format_runs_abridged(const std::vector<Run>& runs, std::size_t width);

struct Summary {
  Index chunks = 0;
  Index iterations = 0;
  Index smallest = 0;
  Index largest = 0;
  double mean = 0.0;
};
Summary summarize(const std::vector<Chunk>& chunks);

/// `step,start,size` (or `technique,step,start,size` when `technique` is not
/// empty) and one row per chunk. With `header`, the header line first.
void write_csv(std::ostream& out, const std::vector<Chunk>& chunks, const std::string& technique,
               bool header);

/// The one-technique listing: a title line, the sizes in order (compressed
/// runs, wrapped) and the summary.
void write_listing(std::ostream& out, const std::string& title, const std::vector<Chunk>& chunks);

/// One row of the all-techniques overview.
struct OverviewRow {
  std::string technique;  ///< name as printed (adaptive ones marked)
  std::vector<Chunk> chunks;
};

/// A side-by-side table: technique, chunks, largest, smallest, and the sizes
/// in order. A row of at most `whole_up_to` chunks is printed whole, wrapped
/// onto continuation lines under the sizes column; longer rows are abridged
/// ("first, second, ..., last") to fit `width` columns.
void write_overview(std::ostream& out, const std::vector<OverviewRow>& rows, std::size_t width,
                    Index whole_up_to);

}  // namespace lb4mpi::chunks_tool
