// The hierarchical model (docs/RUNTIME.md, "Hierarchical"): two levels.
// Between nodes, the nodes' leaders run one of the flat models (CCA, DCA,
// DCA-RMA: make_scheduler on a context over the leaders' communicator,
// Model = ExecConfig::global_model, technique = ExecConfig::technique, P =
// the number of nodes); each global piece a leader obtains goes into its
// node's pool (pool.hpp), from which every rank of the node takes sub-chunks
// by ExecConfig::node_technique (P = the node's ranks) with atomics on the
// node's shared memory. A leader asks for its next global piece when what
// its node has not yet handed out falls to a quarter of the last global
// chunk (prefetch), checking between pieces of its own sub-chunks (about
// every kServeLatency), where it also serves the global level (a two-sided
// coordinator answers the other leaders) and lets the MPI progress.
#pragma once
#include <memory>
#include <vector>

#include "context.hpp"
#include "feedback.hpp"
#include "group.hpp"
#include "pool.hpp"
#include "runtime/pieces.hpp"
#include "runtime/scheduler.hpp"

namespace lb4mpi::rt::hier {

class HierScheduler final : public Scheduler {
 public:
  /// Collective over the channel's communicator on first use of its layout.
  explicit HierScheduler(Context& ctx);
  ~HierScheduler() override;
  HierScheduler(const HierScheduler&) = delete;
  HierScheduler& operator=(const HierScheduler&) = delete;

  void start(Index n) override;
  Grab acquire(bool may_wait) override;
  void finished(std::int64_t id, Index size, double work) override;
  void end(const std::vector<RankFigures>& all) override;

 private:
  /// The leader: a global piece into the pool when it runs low (`need`:
  /// when it is empty; `may_wait`: wait for one). False when none came.
  bool refill(bool need, bool may_wait);
  /// The leader, between pieces: serves the global level, lets MPI progress.
  void service();
  /// The leader, its node's work handed out: the global protocol's end.
  Grab::Kind finish_global(bool may_wait);

  Context& ctx_;
  NodeGroup& group_;
  Pool pool_;
  // The node level
  ExecConfig node_config_;
  AdaptiveFeedback node_fb_;
  std::vector<double> scratch_;
  std::size_t state_doubles_ = 0;
  PieceCutter cut_;
  ServeCadence cadence_;  // the leader's pieces
  double t_piece_ = 0.0;  // when the current sub-chunk was handed out (timing of adaptive node techniques)
  bool global_timed_ = false;
  // The global level (leaders only)
  std::unique_ptr<Context> gctx_;
  std::unique_ptr<Meter> gmeter_;
  std::unique_ptr<AdaptiveFeedback> gfb_;
  std::unique_ptr<Scheduler> gsched_;
  ResultStore gresults_;
  Index published_ = 0;   // iterations the leader published this execution
  Index last_chunk_ = 1;  // size of the last global chunk
  bool global_over_ = false;  // no more global pieces for this node
  bool global_done_ = false;  // the global protocol ended on this leader
  bool global_rma_ = false;
};

}  // namespace lb4mpi::rt::hier
