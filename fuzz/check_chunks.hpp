// Fuzz target (b), the chunk calculators: one input is one loop (technique,
// N up to 2^62, P up to 2^20, any parameters), taken through one of the ways
// the runtime takes chunks (recursive, the DCA split, the closed form, the
// simulator) for one or more executions. See docs/FUZZING.md.
#pragma once
#include <cstddef>
#include <cstdint>

#include "lb4mpi/types.hpp"

namespace lb4mpi::fuzz {

/// Chunks taken per input at most, over all executions (an input picks
/// this, 2^12 or 2^8): every loop whose documented bound is below it is run
/// to its end. In the Debug build under the sanitizers and the fuzzer's
/// instrumentation, a chunk of the heaviest kind (adaptive statistics of
/// 2^20 ranks) costs up to about 50 us, so 2^16 of them stay within a few
/// seconds, well under libFuzzer's -timeout=10.
inline constexpr Index kMaxChunkSteps = Index{1} << 16;

/// Decodes `data` and checks: construction either throws lb4mpi::Error with
/// a message (exactly when TECHNIQUES.md's validation rules say the input is
/// invalid) or the chunks are each >= 1 (>= min_chunk but the last, <=
/// max_chunk), contiguous from 0 and cover [0, N) exactly, within the
/// documented bound on their number (chunk_bounds.hpp). Aborts otherwise.
void check_chunks(const std::uint8_t* data, std::size_t size);

}  // namespace lb4mpi::fuzz
