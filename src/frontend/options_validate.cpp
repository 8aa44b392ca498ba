// Options::validate: whether options can run on a communicator, with
// errors that name the option, where its value came from and the valid values.
#include <string>

#include "lb4mpi/options.hpp"
#include "lb4mpi/techniques/selection.hpp"
#include "option_text.hpp"

namespace lb4mpi {

using detail::text;

std::string Options::explain(const InvalidParameter& e) const {
  const auto it = origin.find(e.field());
  if (it == origin.end()) return e.what();
  return std::string(e.what()) + " (from " + it->second + ")";
}

void Options::validate(Index n, int ranks) const {
  try {
    if (technique != Technique::Auto) {
      params.validate(technique, n, ranks);
    } else {  // automatic selection: every candidate's parameters
      for (Technique t : auto_candidates.empty() ? selection::default_candidates() : auto_candidates) {
        params.validate(t, n, ranks);
      }
    }
  } catch (const InvalidParameter& e) {
    throw Error(explain(e));
  }
  validate(ranks);
}

void Options::validate(int ranks) const {
  const std::string valid = " (valid: 0.." + std::to_string(ranks - 1) + ")";
  if (coordinator < 0 || coordinator >= ranks) {
    throw Error("coordinator rank " + std::to_string(coordinator) + " is outside the communicator" + valid);
  }
  if (!(inject_delay_us >= 0.0)) {
    const auto from = origin.find("inject_delay_us");
    throw Error("inject_delay_us must be >= 0, got " + text(inject_delay_us) + " (" +
                (from != origin.end() ? "from " + from->second : "LB4MPI_INJECT_DELAY_US") + ")");
  }
  for (int r : delay_ranks) {
    if (r < 0 || r >= ranks) {
      throw Error("delay rank " + std::to_string(r) + " (LB4MPI_DELAY_RANKS) is outside the communicator" + valid);
    }
  }
  const auto from = [this](const char* member, const char* var) {
    const auto it = origin.find(member);
    return " (" + (it != origin.end() ? "from " + it->second : std::string(var)) + ")";
  };
  try {
    (void)selection::parse_policy(auto_policy);
  } catch (const Error& e) {
    throw Error("auto_policy: " + std::string(e.what()) + from("auto_policy", "LB4MPI_AUTO_POLICY"));
  }
  for (Technique t : auto_candidates) {
    if (t == Technique::Auto) {
      throw Error("auto_candidates cannot contain auto" + from("auto_candidates", "LB4MPI_AUTO_CANDIDATES") +
                  "; valid: " + valid_technique_names().substr(0, valid_technique_names().rfind(", auto")));
    }
  }
  if (robust) {
    // Automatic selection: the per-technique checks apply to each candidate
    // (the front end leaves out those they refuse).
    const bool fixed = technique != Technique::Auto;
    if (fixed && info(technique).upfront) {
      throw Error("robust mode needs a dynamic technique: " + std::string(name(technique)) +
                  " hands every rank its share up front, so a failed rank's share cannot go to another (`004`)" +
                  from("robust", "LB4MPI_ROBUST") + "; valid: every technique but STATIC");
    }
  }
  if (mode == Mode::Hierarchical) {
    if (robust) {
      throw Error("robust mode is not available in hierarchical mode" + from("robust", "LB4MPI_ROBUST") +
                  "; valid: robust with mode centralized, distributed or distributed-rma, or hierarchical "
                  "without robust");
    }
    if (node_technique == Technique::Auto) {
      throw Error("node_technique cannot be auto (automatic selection works between nodes: technique=auto)" +
                  from("node_technique", "LB4MPI_NODE_SCHEDULING") + "; valid: " +
                  valid_technique_names().substr(0, valid_technique_names().rfind(", auto")));
    }
    if (global_mode == Mode::Hierarchical) {
      throw Error("global_mode cannot be hierarchical" + from("global_mode", "LB4MPI_GLOBAL_MODE") +
                  "; valid: centralized, distributed, distributed-rma");
    }
    if (ranks_per_node < 0) {
      throw Error("ranks_per_node must be >= 0, got " + text(ranks_per_node) +
                  from("ranks_per_node", "LB4MPI_RANKS_PER_NODE") +
                  "; valid: 0 (the nodes MPI reports) or the ranks of an emulated node");
    }
    try {
      params.validate(node_technique, 0, 1);
    } catch (const InvalidParameter& e) {
      throw Error("node_technique: " + explain(e));
    }
  }
  if (chunks_per_reply < 1 && chunks_per_reply != -1) {
    throw Error("chunks_per_reply must be -1 (automatic) or >= 1, got " + text(chunks_per_reply) +
                from("chunks_per_reply", "LB4MPI_CHUNKS_PER_REPLY") +
                "; valid: -1 (automatic), 1 (one chunk per reply, as LB4MPI), or the most chunks in one reply");
  }
  if (!(robust_timeout > 0.0)) {
    throw Error("robust_timeout must be > 0 seconds, got " + text(robust_timeout) +
                from("robust_timeout", "LB4MPI_ROBUST_TIMEOUT"));
  }
  for (int r : fail_ranks) {
    if (r < 0 || r >= ranks) {
      throw Error("fail rank " + std::to_string(r) + " (LB4MPI_FAIL_RANKS) is outside the communicator" + valid);
    }
  }
  if (!fail_ranks.empty() && !robust) {
    // Without robust mode a stopped rank's chunk is never finished: under
    // mpiexec --enable-recovery the others would wait for it forever.
    throw Error("failure injection needs robust mode: fail_ranks" + from("fail_ranks", "LB4MPI_FAIL_RANKS") +
                " stops ranks whose chunks only robust mode hands to others; set robust" +
                from("robust", "LB4MPI_ROBUST=1") + " or leave fail_ranks empty (docs/ROBUST.md)");
  }
  if (fail_after.chunks == 0 || fail_after.chunks < -1 || (fail_after.seconds < 0.0 && fail_after.seconds != -1.0)) {
    throw Error("fail_after must be >= 1 chunks, >= 0 seconds, end or report, got " + text(fail_after) +
                from("fail_after", "LB4MPI_FAIL_AFTER"));
  }
  if (fail_how != "kill" && fail_how != "exit") {
    throw Error("fail_how '" + fail_how + "' is not known" + from("fail_how", "LB4MPI_FAIL_HOW") +
                "; valid: kill, exit");
  }
  for (int r : slow_ranks) {
    if (r < 0 || r >= ranks) {
      throw Error("slow rank " + std::to_string(r) + " (LB4MPI_SLOW_RANKS) is outside the communicator" + valid);
    }
  }
  if (!(slow_factor >= 1.0)) {
    throw Error("slow_factor must be >= 1, got " + text(slow_factor) + from("slow_factor", "LB4MPI_SLOW_FACTOR"));
  }
  if (slow_from < 0) {
    throw Error("slow_from must be >= 0 (a time step), got " + text(slow_from) + from("slow_from", "LB4MPI_SLOW_FROM"));
  }
}

}  // namespace lb4mpi
