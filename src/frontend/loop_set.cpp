// The C++ front end of several loops in flight: LoopSet and run_loops.
#include "lb4mpi/loops.hpp"

#include <string>

#include "lb4mpi/lb4mpi.hpp"
#include "runtime/group.hpp"

namespace lb4mpi {

namespace {
std::vector<LoopGroup::Member> members(const std::vector<LoopSpec>& loops) {
  std::vector<LoopGroup::Member> m;
  m.reserve(loops.size());
  for (const LoopSpec& s : loops) m.push_back(LoopGroup::Member{s.first, s.last, s.options});
  return m;
}
}  // namespace

LoopSet::LoopSet(MPI_Comm comm, const std::vector<LoopSpec>& loops)
    : group_(std::make_unique<LoopGroup>(comm, members(loops))) {}
LoopSet::~LoopSet() = default;
LoopSet::LoopSet(LoopSet&&) noexcept = default;
LoopSet& LoopSet::operator=(LoopSet&&) noexcept = default;

int LoopSet::size() const { return group_->size(); }
std::optional<Chunk> LoopSet::next(int l) { return group_->next(l); }
std::optional<LoopPiece> LoopSet::next() {
  int l = 0;
  Chunk c;
  if (!group_->next_any(l, c)) return std::nullopt;
  return LoopPiece{l, c};
}
void LoopSet::end_chunk() { group_->end_chunk(); }
bool LoopSet::done(int l) const { return group_->done(l); }
bool LoopSet::terminated() { return group_->terminated(); }
std::vector<Report> LoopSet::finish() { return group_->finish(); }
void LoopSet::restart(const std::vector<std::pair<Index, Index>>& ranges) { group_->restart(ranges); }

std::vector<Report> run_loops(MPI_Comm comm, const std::vector<LoopSpec>& loops,
                              const std::vector<std::function<void(Chunk)>>& bodies, bool asynchronous) {
  if (bodies.size() != loops.size()) {
    throw Error("lb4mpi: run_loops needs one body per loop (" + std::to_string(loops.size()) + "), got " +
                std::to_string(bodies.size()));
  }
  std::vector<Report> reports;
  if (!asynchronous) {
    for (std::size_t l = 0; l < loops.size(); ++l) {
      reports.push_back(parallel_for(comm, loops[l].first, loops[l].last, loops[l].options, bodies[l]));
    }
    return reports;
  }
  LoopSet set(comm, loops);
  while (auto p = set.next()) bodies[static_cast<std::size_t>(p->loop)](p->chunk);
  return set.finish();
}

}  // namespace lb4mpi
