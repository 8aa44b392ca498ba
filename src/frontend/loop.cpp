// The C++ front end: lb4mpi::Loop forwards to the execution model's executor.
#include "lb4mpi/lb4mpi.hpp"
#include "runtime/executor.hpp"

namespace lb4mpi {

Loop::Loop(MPI_Comm comm, Index first, Index last, const Options& options)
    : exec_(make_executor(comm, first, last, options)) {}
Loop::~Loop() = default;
Loop::Loop(Loop&&) noexcept = default;
Loop& Loop::operator=(Loop&&) noexcept = default;

std::optional<Chunk> Loop::next() { return exec_->next(); }
void Loop::end_chunk() { exec_->end_chunk(); }
Report Loop::finish() { return exec_->finish(); }
void Loop::restart(Index first, Index last) { exec_->restart(first, last); }
const Options& Loop::options() const { return exec_->options(); }

}  // namespace lb4mpi
