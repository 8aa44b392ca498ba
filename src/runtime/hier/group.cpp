#include "group.hpp"

#include <algorithm>
#include <deque>

#include "runtime/mpi.hpp"
#include "runtime/nodes.hpp"

namespace lb4mpi::rt::hier {

namespace {

using Groups = std::deque<NodeGroup>;

void release(NodeGroup& g) {
  for (Channel::Window& w : g.leaders_channel.windows) {
    MPI_Win_unlock_all(w.win);
    MPI_Win_free(&w.win);
  }
  g.leaders_channel.windows.clear();
  if (g.pool != MPI_WIN_NULL) {
    MPI_Win_unlock_all(g.pool);
    MPI_Win_free(&g.pool);
  }
  if (g.leaders != MPI_COMM_NULL) MPI_Comm_free(&g.leaders);
  if (g.node != MPI_COMM_NULL) MPI_Comm_free(&g.node);
}

int delete_groups(MPI_Comm, int, void* value, void*) {
  auto* groups = static_cast<Groups*>(value);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) {
    for (NodeGroup& g : *groups) release(g);
  }
  delete groups;
  return MPI_SUCCESS;
}

int keyval() {
  static int key = [] {
    int k = MPI_KEYVAL_INVALID;
    check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_groups, &k, nullptr), "MPI_Comm_create_keyval");
    return k;
  }();
  return key;
}

void make(NodeGroup& g, MPI_Comm comm) {
  int rank = 0, size = 1;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  const std::vector<int> lowest = node_map(comm, g.ranks_per_node);  // a node is named by its lowest rank
  g.node_of.assign(static_cast<std::size_t>(size), 0);
  g.node_sizes.clear();
  for (int r = 0; r < size; ++r) {
    const auto i = static_cast<std::size_t>(r);
    if (lowest[i] == r) g.node_sizes.push_back(0);  // a new node, in order of lowest rank
  }
  std::vector<int> index_of_lowest(static_cast<std::size_t>(size), -1);
  int next = 0;
  for (int r = 0; r < size; ++r) {
    if (lowest[static_cast<std::size_t>(r)] == r) index_of_lowest[static_cast<std::size_t>(r)] = next++;
  }
  for (int r = 0; r < size; ++r) {
    const int n = index_of_lowest[static_cast<std::size_t>(lowest[static_cast<std::size_t>(r)])];
    g.node_of[static_cast<std::size_t>(r)] = n;
    ++g.node_sizes[static_cast<std::size_t>(n)];
  }
  g.nodes = next;
  g.node_index = g.node_of[static_cast<std::size_t>(rank)];
  g.node_size = g.node_sizes[static_cast<std::size_t>(g.node_index)];
  check_mpi(MPI_Comm_split(comm, g.node_index, rank, &g.node), "MPI_Comm_split");
  check_mpi(MPI_Comm_set_errhandler(g.node, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check_mpi(MPI_Comm_rank(g.node, &g.node_rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_split(comm, g.node_rank == 0 ? 0 : MPI_UNDEFINED, rank, &g.leaders), "MPI_Comm_split");
  if (g.leaders != MPI_COMM_NULL) {
    check_mpi(MPI_Comm_set_errhandler(g.leaders, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    g.leaders_channel.comm = g.leaders;
  }
}

}  // namespace

void NodeGroup::reserve(std::size_t want) {
  if (pool != MPI_WIN_NULL && slots >= want) return;
  if (pool != MPI_WIN_NULL) {
    MPI_Win_unlock_all(pool);
    check_mpi(MPI_Win_free(&pool), "MPI_Win_free");
  }
  const MPI_Aint bytes = leader() ? static_cast<MPI_Aint>(want * sizeof(std::int64_t)) : 0;
  void* mine = nullptr;
  check_mpi(MPI_Win_allocate_shared(bytes, sizeof(std::int64_t), MPI_INFO_NULL, node, &mine, &pool),
            "MPI_Win_allocate_shared");
  check_mpi(MPI_Win_set_errhandler(pool, MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
  MPI_Aint size = 0;
  int unit = 0;
  void* at = nullptr;
  check_mpi(MPI_Win_shared_query(pool, 0, &size, &unit, &at), "MPI_Win_shared_query");
  base = static_cast<std::int64_t*>(at);
  slots = want;
  if (leader()) std::fill_n(base, want, 0);
  // The unified memory model: the leader's stores are seen by the others
  // through the atomics and the node's barrier after it.
  check_mpi(MPI_Win_lock_all(MPI_MODE_NOCHECK, pool), "MPI_Win_lock_all");
  barrier(node);
}

NodeGroup& node_group(MPI_Comm comm, int ranks_per_node) {
  void* value = nullptr;
  int found = 0;
  check_mpi(MPI_Comm_get_attr(comm, keyval(), &value, &found), "MPI_Comm_get_attr");
  auto* groups = static_cast<Groups*>(value);
  if (found == 0) {
    groups = new Groups();
    const int rc = MPI_Comm_set_attr(comm, keyval(), groups);
    if (rc != MPI_SUCCESS) {
      delete groups;
      check_mpi(rc, "MPI_Comm_set_attr");
    }
  }
  for (NodeGroup& g : *groups) {
    if (g.ranks_per_node == ranks_per_node) return g;
  }
  groups->emplace_back();
  NodeGroup& g = groups->back();
  g.ranks_per_node = ranks_per_node;
  make(g, comm);
  return g;
}

}  // namespace lb4mpi::rt::hier
