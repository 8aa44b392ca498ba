// Messages of the two-sided protocols (sent as MPI_BYTE: the ranks of one
// job share one architecture). Every message carries the loop execution's
// epoch so that a stray message is detected, not silently executed.
#pragma once
#include <cstdint>

namespace lb4mpi::detail {

enum Tag : int {
  kTagRequest = 4101,  ///< worker -> coordinator: "give me work", with its measurements
  kTagWork = 4102,     ///< coordinator -> worker: a chunk, or size 0 = no more work
};

enum RequestKind : std::int32_t {
  kAsk = 0,   ///< wants a reply (a chunk, a step, or "no more work")
  kDone = 1,    ///< DCA: "my last step was past the end", no reply
  kCommit = 2,  ///< DCA without a closed form: "I took `commit` iterations of my grant", no reply
};

struct RequestMsg {
  std::int32_t epoch = 0;
  std::int32_t kind = kAsk;
  std::int64_t done = 0;   ///< iterations executed since the previous request
  double work = 0.0;       ///< seconds of work for them
  double elapsed = 0.0;    ///< seconds since the previous request was sent
  std::int64_t commit = 0; ///< kCommit: the size the rank computed for its grant
};

struct WorkMsg {
  std::int32_t epoch = 0;
  std::int32_t reserved = 0;
  std::int64_t begin = 0;  ///< CCA: chunk start, 0-based within the loop; DCA: the step index
  std::int64_t size = 0;   ///< CCA: chunk size, 0 = no more work; DCA: 1 = a step, 0 = none;
                           ///< DCA grant: R_i (0 = no more work), begin = the chunk's start
  // DCA grant (techniques without a closed form): SharedInputs of the step.
  std::int64_t step = 0;
  std::int32_t measured = 1;
  std::int32_t reserved2 = 0;
  double a = 0.0;
  double b = 0.0;
  double c = 0.0;
};

}  // namespace lb4mpi::detail
