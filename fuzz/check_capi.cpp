// Fuzz target (c): the C API on one rank. See check_capi.hpp.
//
// Input: a sequence of operations, each a selector byte and its arguments:
// one of the DLS_* calls (or LB4MPI_* extras) on one of two handles, a NULL
// handle or a handle that was never set up, with arguments drawn from valid
// and invalid classes; an LB4MPI_* variable set before DLS_Parameters_Setup;
// or "finish": run the loop(s) in flight to their end as a correct program
// would. Loops are kept small (at most 4096 iterations, see tame()) so that
// one input runs in milliseconds.
#include "check_capi.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <optional>
#include <tuple>
#include <string>
#include <vector>

#include "byte_reader.hpp"
#include "check.hpp"
#include "environment.hpp"
#include "error_hook.hpp"
#include "lb4mpi/lb4mpi.h"
#include "lb4mpi/types.hpp"

namespace lb4mpi::fuzz {
namespace {

/// What the error hook throws: the C API would have ended the job here.
struct JobEnded {
  std::string message;
};

void throw_instead_of_exit(const std::string& message) { throw JobEnded{message}; }

/// FUZZ_VERBOSE set: each call and why a sequence ended go to stderr (docs/FUZZING.md).
bool verbose() {
  static const bool on = std::getenv("FUZZ_VERBOSE") != nullptr;
  return on;
}

constexpr int kMaxLoops = 8;       // arrays passed to the multi-loop calls (DLS_NumLoops takes <= 6)
constexpr Index kSmallLoop = 4096;  // iterations of a loop whose chunks are enumerated

// The method ids of lb4mpi.h, and a few that are not.
constexpr std::array<int, 21> kMethods = {STATIC,     SS,          FSC,         mFSC,        GSS,        TSS,
                                          FAC,        WF,          AWF,         AWF_B,       AWF_C,      AWF_D,
                                          AWF_E,      AF,          LB4MPI_TAP,  LB4MPI_FAC_PROB,
                                          LB4MPI_TFSS, LB4MPI_FISS, LB4MPI_VISS, LB4MPI_RND, LB4MPI_PLS};

/// Iterations handed out for one loop, as disjoint intervals.
class Coverage {
 public:
  void start(Index first, Index n) {
    first_ = first;
    n_ = n;
    taken_.clear();
    total_ = 0;
  }
  void add(Index begin, Index size, const char* where) {
    const Index end = begin + size;
    expect(size > 0 && begin >= first_ && end <= first_ + n_, [&] {
      return std::string(where) + ": chunk [" + std::to_string(begin) + ", +" + std::to_string(size) +
             ") outside the loop [" + std::to_string(first_) + ", +" + std::to_string(n_) + ")";
    });
    const auto next = taken_.lower_bound(begin);
    const bool overlaps_next = next != taken_.end() && next->first < end;
    const bool overlaps_prev = next != taken_.begin() && std::prev(next)->second > begin;
    expect(!overlaps_next && !overlaps_prev, [&] {
      return std::string(where) + ": chunk [" + std::to_string(begin) + ", +" + std::to_string(size) +
             ") handed out twice (overlaps an earlier chunk)";
    });
    taken_[begin] = end;
    total_ += size;
  }
  [[nodiscard]] bool complete() const { return total_ == n_; }
  [[nodiscard]] Index n() const { return n_; }
  [[nodiscard]] std::string state() const {
    return std::to_string(total_) + " of " + std::to_string(n_) + " iterations handed out";
  }

 private:
  Index first_ = 0;
  Index n_ = 0;
  Index total_ = 0;
  std::map<Index, Index> taken_;
};

/// What the program knows of one handle after its successful calls.
struct Handle {
  infoDLS info{nullptr};
  bool set_up = false;
  int num_loops = 1;  // DLS_NumLoops after setup
  bool loop = false;  // between DLS_StartLoop and DLS_EndLoop
  Coverage single;
  bool loops = false;  // between DLS_StartMLoops and DLS_EndMLoops
  int target = 0;
  std::vector<Coverage> multi;
};

class Session {
 public:
  explicit Session(ByteReader& in) : in_(in) {}

  void run() {
    while (!in_.empty()) step();
  }

 private:
  // ---- arguments -------------------------------------------------------

  /// One of the two handles, NULL, or an infoDLS that DLS_Parameters_Setup never saw.
  infoDLS* handle_arg(Handle*& model) {
    model = nullptr;
    switch (in_.take<std::uint8_t>() % 8) {
      case 6:
        return nullptr;
      case 7:
        stranger_.state = reinterpret_cast<void*>(in_.take<std::uintptr_t>());
        return &stranger_;
      default:
        model = &handles_[in_.take<std::uint8_t>() % 2];
        return &model->info;
    }
  }

  int method_arg() {
    switch (in_.take<std::uint8_t>() % 8) {
      case 6: return in_.take_in(-2, 16);
      case 7: return in_.take<int>();
      default: return kMethods[in_.take<std::uint8_t>() % kMethods.size()];
    }
  }

  /// [first, last], inclusive; n = last - first + 1 may be invalid.
  std::pair<int, int> range_arg() {
    int first = 0;
    Index n = 0;
    switch (in_.take<std::uint8_t>() % 5) {
      case 0:
        first = in_.take_in(-100, 100);
        n = in_.take_in<Index>(0, 64);
        break;
      case 1:
        n = in_.take_in<Index>(0, kSmallLoop);
        first = in_.take_in(INT_MIN + 1, static_cast<int>(INT_MAX - n + 1));
        break;
      case 2: {  // last < first - 1: invalid
        first = in_.take_in(INT_MIN + 2, INT_MAX);
        return {first, in_.take_in(INT_MIN, first - 2)};
      }
      case 3: {  // about 2^31 iterations: one more than an int holds, or just within
        first = in_.take_in(INT_MIN, 0);
        return {first, in_.take_in(INT_MAX - 1000, INT_MAX)};
      }
      default:
        return {in_.take<int>(), in_.take<int>()};
    }
    return {first, static_cast<int>(first + n - 1)};
  }

  /// A valid loop of more than kSmallLoop iterations is cut to kSmallLoop:
  /// on one rank its coordinator still hands its chunks out in pieces, of
  /// breakAfter iterations or, automatically, of about 20 us of work each —
  /// one iteration per piece when, as here, the calls around a piece alone
  /// take longer (the Debug build under the sanitizers), so even a
  /// one-chunk loop of 2^31 iterations would take 2^31 calls. Ranges past
  /// what an int holds stay (they are errors).
  static void tame(int first, int& last) {
    const Index n = static_cast<Index>(last) - first + 1;
    if (n > kSmallLoop && n <= INT_MAX) last = static_cast<int>(first + kSmallLoop - 1);
  }

  // ---- the calls ----------------------------------------------------------

  void step() {
    static constexpr std::array<const char*, 18> kNames = {
        "Configure_Chunk_Calculation_Mode", "LB4MPI_Chunk_Calculation_Mode", "DLS_Parameters_Setup",
        "DLS_NumLoops", "DLS_StartLoop", "DLS_Terminated", "DLS_StartChunk", "DLS_EndChunk",
        "DLS_EndChunk (3 arguments)", "DLS_EndLoop", "DLS_StartMLoops", "DLS_MTerminated", "DLS_TargetLoop",
        "DLS_EndMLoops", "DLS_Finalize", "finish", "set a variable", "set a variable"};
    Handle* h = nullptr;
    const std::size_t op = in_.take<std::uint8_t>() % kNames.size();
    if (verbose()) std::fprintf(stderr, "  %s\n", kNames[op]);
    switch (op) {
      case 0:
        Configure_Chunk_Calculation_Mode(in_.take_in(-1, HIERARCHICAL + 1));
        break;
      case 1: {
        infoDLS* info = handle_arg(h);
        const int mode = LB4MPI_Chunk_Calculation_Mode(info);
        expect(mode >= -1 && mode <= HIERARCHICAL, [&] { return "LB4MPI_Chunk_Calculation_Mode gave " + std::to_string(mode); });
        break;
      }
      case 2:
        setup();
        break;
      case 3: {
        infoDLS* info = handle_arg(h);
        const int n = in_.take_in(-2, 6);
        DLS_NumLoops(info, n);
        if (n >= 1) {
          // A handle set up takes it for its next DLS_StartMLoops; any other
          // (not set up, NULL, a stranger) the process, for the next setup.
          (h != nullptr && h->set_up ? h->num_loops : pending_loops_) = n;
        }
        break;
      }
      case 4:
        start_loop();
        break;
      case 5: {
        infoDLS* info = handle_arg(h);
        const int done = DLS_Terminated(info);
        if (h != nullptr && h->loop && done != 0) {
          expect(h->single.complete(), [&] { return "DLS_Terminated returned 1 with " + h->single.state(); });
        }
        break;
      }
      case 6:
        start_chunk();
        break;
      case 7:
        DLS_EndChunk(handle_arg(h));
        break;
      case 8: {
        int n = -7;
        double w = -7.0;
        DLS_EndChunk(handle_arg(h), &n, &w);  // `003` Listing 2.1's form: leaves both unchanged
        expect(n == -7 && w == -7.0, [] { return std::string("DLS_EndChunk(info, &nIter, &workTime) changed them"); });
        break;
      }
      case 9:
        end_loop();
        break;
      case 10:
        start_loops();
        break;
      case 11: {
        infoDLS* info = handle_arg(h);
        const int done = DLS_MTerminated(info);
        if (h != nullptr && h->loops && done != 0) check_all_covered(*h, "DLS_MTerminated returned 1");
        break;
      }
      case 12: {
        infoDLS* info = handle_arg(h);
        const int l = in_.take_in(-2, kMaxLoops);
        DLS_TargetLoop(info, l);
        if (h != nullptr) h->target = l;
        break;
      }
      case 13:
        end_loops();
        break;
      case 14: {
        infoDLS* info = handle_arg(h);
        DLS_Finalize(info);
        if (h != nullptr) *h = Handle{};
        break;
      }
      case 15:
        finish();
        break;
      default:
        set_variable();
        break;
    }
  }

  void setup() {
    Handle* h = nullptr;
    infoDLS* info = handle_arg(h);
    const int sel = in_.take<std::uint8_t>();
    const MPI_Comm comm = (sel & 3) == 3 ? MPI_COMM_NULL : ((sel & 1) != 0 ? MPI_COMM_SELF : MPI_COMM_WORLD);
    const int procs = (sel & 4) != 0 ? in_.take<int>() : 1;
    const int request_when = in_.take_in(-2, 64);
    const int break_after = in_.take_in(-2, 64);
    const int min_chunk = (sel & 8) != 0 ? in_.take<int>() : in_.take_in(-1, 16);
    const double h_overhead = (sel & 16) != 0 ? in_.take_raw_double() : 0.013716;
    const double sigma = (sel & 32) != 0 ? in_.take_raw_double() : 0.0605;
    const int knl = (sel & 64) != 0 ? in_.take_in(-1, 2) : 0;
    const double xeon = (sel & 128) != 0 ? in_.take_raw_double() : 1.0;
    const double knl_speed = (sel & 128) != 0 ? in_.take_raw_double() : 2.0;
    if (verbose()) {
      std::fprintf(stderr, "    comm %s, numProcs %d, requestWhen %d, breakAfter %d, minChunk %d, h %g, sigma %g, nKNL %d\n",
                   comm == MPI_COMM_NULL ? "NULL" : (comm == MPI_COMM_SELF ? "SELF" : "WORLD"), procs, request_when,
                   break_after, min_chunk, h_overhead, sigma, knl);
    }
    DLS_Parameters_Setup(comm, info, procs, request_when, break_after, min_chunk, h_overhead, sigma, knl, xeon,
                         knl_speed);
    if (h != nullptr) {
      const infoDLS set_up = *info;  // (info is &h->info)
      *h = Handle{};
      h->info = set_up;
      h->set_up = true;
      h->num_loops = pending_loops_;
    }
    pending_loops_ = 1;
  }

  void start_loop() {
    Handle* h = nullptr;
    infoDLS* info = handle_arg(h);
    int method = method_arg();
    auto [first, last] = range_arg();
    tame(first, last);
    if (verbose()) std::fprintf(stderr, "    [%d, %d], method %d\n", first, last, method);
    DLS_StartLoop(info, first, last, method);
    if (h != nullptr) {
      h->loop = true;
      h->single.start(first, static_cast<Index>(last) - first + 1);
    }
  }

  void start_chunk() {
    Handle* h = nullptr;
    infoDLS* info = handle_arg(h);
    int start = -7;
    int size = -7;
    const bool null = in_.take<std::uint8_t>() % 8 == 0;
    DLS_StartChunk(info, null ? nullptr : &start, null ? nullptr : &size);
    expect(!null, [] { return std::string("DLS_StartChunk accepted NULL pointers"); });
    note_chunk(h, start, size, "DLS_StartChunk");
  }

  // A chunk the program received: in its loop, never twice; size 0 means
  // "nothing" (one loop: the loop is done).
  void note_chunk(Handle* h, int start, int size, const char* where) {
    expect(size >= 0, [&] { return std::string(where) + " gave size " + std::to_string(size); });
    if (h == nullptr) return;
    if (h->loops) {
      if (size > 0) {
        expect(h->target >= 0 && h->target < static_cast<int>(h->multi.size()),
               [&] { return std::string(where) + " gave a chunk for target loop " + std::to_string(h->target); });
        h->multi[static_cast<std::size_t>(h->target)].add(start, size, where);
      }
    } else if (h->loop) {
      if (size > 0) {
        h->single.add(start, size, where);
      } else {
        expect(h->single.complete(), [&] { return std::string(where) + " gave size 0 with " + h->single.state(); });
      }
    }
  }

  void end_loop() {
    Handle* h = nullptr;
    infoDLS* info = handle_arg(h);
    int n = -7;
    double w = -7.0;
    const bool null = in_.take_bool();
    DLS_EndLoop(info, null ? nullptr : &n, null ? nullptr : &w);
    if (h != nullptr && h->loop) {
      // One rank: it was handed every iteration (or the call would have failed).
      expect(null || n == h->single.n() || h->single.n() > INT_MAX, [&] {
        return "DLS_EndLoop reports " + std::to_string(n) + " iterations of " + std::to_string(h->single.n());
      });
      h->loop = false;
    }
  }

  void start_loops() {
    Handle* h = nullptr;
    infoDLS* info = handle_arg(h);
    std::array<int, kMaxLoops> firsts{};
    std::array<int, kMaxLoops> lasts{};
    std::array<int, kMaxLoops> methods{};
    for (int l = 0; l < kMaxLoops; ++l) {
      methods[l] = method_arg();
      std::tie(firsts[l], lasts[l]) = range_arg();
      tame(firsts[l], lasts[l]);
    }
    const bool null = in_.take<std::uint8_t>() % 8 == 0;
    if (verbose()) {
      for (int l = 0; l < kMaxLoops; ++l) std::fprintf(stderr, "    [%d, %d], method %d\n", firsts[l], lasts[l], methods[l]);
    }
    DLS_StartMLoops(info, null ? nullptr : firsts.data(), lasts.data(), methods.data());
    if (h != nullptr) {
      h->loops = true;
      h->target = 0;
      h->multi.assign(static_cast<std::size_t>(h->num_loops), Coverage{});
      for (int l = 0; l < h->num_loops; ++l) {
        h->multi[static_cast<std::size_t>(l)].start(firsts[l], static_cast<Index>(lasts[l]) - firsts[l] + 1);
      }
    }
  }

  void check_all_covered(const Handle& h, const char* when) {
    for (std::size_t l = 0; l < h.multi.size(); ++l) {
      expect(h.multi[l].complete(), [&] { return std::string(when) + " with loop " + std::to_string(l) + ": " + h.multi[l].state(); });
    }
  }

  void end_loops() {
    Handle* h = nullptr;
    infoDLS* info = handle_arg(h);
    std::array<int, kMaxLoops> n{};
    std::array<double, kMaxLoops> w{};
    n.fill(-7);
    const bool null = in_.take_bool();
    DLS_EndMLoops(info, null ? nullptr : n.data(), null ? nullptr : w.data());
    if (h != nullptr && h->loops) {
      for (std::size_t l = 0; l < h->multi.size() && !null; ++l) {
        expect(n[l] == h->multi[l].n() || h->multi[l].n() > INT_MAX, [&] {
          return "DLS_EndMLoops reports " + std::to_string(n[l]) + " iterations of loop " + std::to_string(l) + " of " +
                 std::to_string(h->multi[l].n());
        });
      }
      h->loops = false;
    }
  }

  // Runs what is in flight on a handle to its end, as a correct program does.
  void finish() {
    Handle& h = handles_[in_.take<std::uint8_t>() % 2];
    const bool three = in_.take_bool();
    Index calls = 0;
    const auto bounded = [&](Index n) {
      expect(++calls <= 4 * n + 64, [&] { return "the loop did not end after " + std::to_string(calls) + " chunk calls"; });
    };
    if (h.loop) {
      while (DLS_Terminated(&h.info) == 0) {
        bounded(h.single.n());
        int start = -7;
        int size = -7;
        DLS_StartChunk(&h.info, &start, &size);
        expect(size > 0, [] { return std::string("DLS_StartChunk gave nothing after DLS_Terminated returned 0"); });
        note_chunk(&h, start, size, "DLS_StartChunk");
        if (three) {
          int n = 0;
          double w = 0.0;
          DLS_EndChunk(&h.info, &n, &w);
        } else {
          DLS_EndChunk(&h.info);
        }
      }
      expect(h.single.complete(), [&] { return "DLS_Terminated returned 1 with " + h.single.state(); });
    } else if (h.loops) {
      Index total = 0;
      for (const Coverage& c : h.multi) total += c.n();
      while (DLS_MTerminated(&h.info) == 0) {
        bounded(total + static_cast<Index>(h.multi.size()));
        for (int l = 0; l < static_cast<int>(h.multi.size()); ++l) {
          DLS_TargetLoop(&h.info, l);
          h.target = l;
          int start = -7;
          int size = -7;
          DLS_StartChunk(&h.info, &start, &size);
          note_chunk(&h, start, size, "DLS_StartChunk (several loops)");
          if (size > 0) DLS_EndChunk(&h.info);
        }
      }
      check_all_covered(h, "DLS_MTerminated returned 1");
    }
    if (verbose()) std::fprintf(stderr, "    %lld rounds\n", static_cast<long long>(calls));
  }

  // A variable DLS_Parameters_Setup reads; not the ones that write files or
  // sleep (LB4MPI_TRACE, LB4MPI_ITERATIONS_INFO, LB4MPI_INJECT_DELAY_US).
  void set_variable() {
    static constexpr std::array<const char*, 13> kVars = {
        "LB4MPI_MODE",        "LB4MPI_MIN_CHUNK",    "LB4MPI_MAX_CHUNK",    "LB4MPI_SIGMA",
        "LB4MPI_MU",          "LB4MPI_FISS_B",       "LB4MPI_VISS_X",       "LB4MPI_RND_BOUNDS",
        "LB4MPI_WEIGHTS",     "LB4MPI_BREAK_AFTER",  "LB4MPI_REQUEST_WHEN", "LB4MPI_IDLE_PROBING",
        "LB4MPI_STRICT"};
    static constexpr std::array<const char*, 12> kValues = {
        "distributed", "dca-rma", "centralized", "1", "0", "-5", "2", "0.5", "3", "1e300", "sideways", ""};
    const char* var = kVars[in_.take<std::uint8_t>() % kVars.size()];
    const std::string value = in_.take_bool() ? std::string(kValues[in_.take<std::uint8_t>() % kValues.size()])
                                              : in_.take_string(16);
    if (verbose()) std::fprintf(stderr, "    %s='%s'\n", var, value.c_str());
    env_.set(var, value);
  }

  ByteReader& in_;
  std::array<Handle, 2> handles_;
  infoDLS stranger_{nullptr};
  int pending_loops_ = 1;  // DLS_NumLoops before setup
  Environment env_;

 public:
  ~Session() {
    lb4mpi::capi::reset_for_testing();
    env_.clear();
  }
};

// ---- calls that must succeed -------------------------------------------------
//
// The fuzzed sequences mix valid and invalid calls, and the job may end on
// any error. So that a valid call wrongly refused does not pass as "one of
// the errors", this table of correct programs (lb4mpi.h, `003` Listing 2.1)
// runs before the first input: every call in it must succeed, and every
// loop hand out each iteration exactly once.
struct ValidProgram {
  int mode;    // Configure_Chunk_Calculation_Mode: CENTRALIZED, DECENTRALIZED, DECENTRALIZED_RMA, HIERARCHICAL
  int method;  // every method id of lb4mpi.h
  int first;
  int last;
  int min_chunk;
  int loops;  // 1: DLS_StartLoop; 2: DLS_NumLoops(2) and DLS_StartMLoops
};

std::vector<ValidProgram> valid_programs() {
  std::vector<ValidProgram> out;
  for (int mode : {int{CENTRALIZED}, int{DECENTRALIZED}, int{DECENTRALIZED_RMA}, int{HIERARCHICAL}}) {
    for (int method : kMethods) {
      out.push_back({mode, method, 0, 199, 1, 1});
      out.push_back({mode, method, -50, 49, 3, 1});  // negative indices, a minimum chunk
    }
    out.push_back({mode, GSS, 5, 4, 1, 1});  // an empty loop: lastIter = firstIter - 1
    out.push_back({mode, FAC, 0, 99, 1, 2});
  }
  return out;
}

void run_valid_program(const ValidProgram& v) {
  const std::string what = "valid program: mode " + std::to_string(v.mode) + ", method " + std::to_string(v.method) +
                           ", [" + std::to_string(v.first) + ", " + std::to_string(v.last) + "], minChunk " +
                           std::to_string(v.min_chunk) + ", " + std::to_string(v.loops) + " loop(s)";
  try {
    Configure_Chunk_Calculation_Mode(v.mode);
    infoDLS info{nullptr};
    if (v.loops > 1) DLS_NumLoops(&info, v.loops);
    DLS_Parameters_Setup(MPI_COMM_WORLD, &info, 1, -1, -1, v.min_chunk, 0.013716, 0.0605, 0, 1.0, 1.0);
    expect(LB4MPI_Chunk_Calculation_Mode(&info) == -1, [&] { return what + ": a mode before any loop started"; });
    const Index n = static_cast<Index>(v.last) - v.first + 1;
    std::vector<Coverage> cover(static_cast<std::size_t>(v.loops));
    for (Coverage& c : cover) c.start(v.first, n);
    Index calls = 0;
    if (v.loops == 1) {
      DLS_StartLoop(&info, v.first, v.last, v.method);
      expect(LB4MPI_Chunk_Calculation_Mode(&info) == v.mode, [&] { return what + ": the loop's mode differs"; });
      while (DLS_Terminated(&info) == 0) {
        expect(++calls <= 4 * n + 64, [&] { return what + ": the loop does not end"; });
        int start = -7, size = -7;
        DLS_StartChunk(&info, &start, &size);
        expect(size > 0, [&] { return what + ": DLS_StartChunk gave nothing before the end"; });
        cover[0].add(start, size, "valid program");
        DLS_EndChunk(&info);
      }
      int done = -1;
      double work = -1.0;
      DLS_EndLoop(&info, &done, &work);
    } else {
      std::vector<int> firsts(static_cast<std::size_t>(v.loops), v.first), lasts(firsts.size(), v.last),
          methods(firsts.size(), v.method);
      DLS_StartMLoops(&info, firsts.data(), lasts.data(), methods.data());
      expect(LB4MPI_Chunk_Calculation_Mode(&info) == v.mode, [&] { return what + ": the loops' mode differs"; });
      while (DLS_MTerminated(&info) == 0) {
        for (int l = 0; l < v.loops; ++l) {
          expect(++calls <= 8 * n + 64, [&] { return what + ": the loops do not end"; });
          DLS_TargetLoop(&info, l);
          int start = -7, size = -7;
          DLS_StartChunk(&info, &start, &size);
          if (size > 0) {
            cover[static_cast<std::size_t>(l)].add(start, size, "valid program");
            DLS_EndChunk(&info);
          }
        }
      }
      std::vector<int> iters(firsts.size(), -1);
      std::vector<double> times(firsts.size(), -1.0);
      DLS_EndMLoops(&info, iters.data(), times.data());
    }
    for (const Coverage& c : cover) expect(c.complete(), [&] { return what + ": " + c.state(); });
    DLS_Finalize(&info);
  } catch (const JobEnded& e) {
    expect(false, [&] { return what + ": a call of a correct program was refused: " + e.message; });
  }
  lb4mpi::capi::reset_for_testing();
}

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) MPI_Finalize();
}

}  // namespace

void init_capi() {
  // Open MPI refuses to start as root without these (DESIGN.md).
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  // Open MPI's own handlers of SIGABRT, SIGSEGV, ... would take a failed
  // check's abort from libFuzzer, which then saves no reproducer.
  setenv("OMPI_MCA_opal_signal", "", 0);
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized != 0) return;
  MPI_Init(nullptr, nullptr);
  lb4mpi::capi::set_error_hook(throw_instead_of_exit);
  // One empty loop first: the runtime's function-local statics (its list of
  // channels, which MPI_Finalize still walks) are then constructed before
  // the exit handler below is registered, so they are destroyed after it
  // runs, not before (reported: a program that registers MPI_Finalize with
  // atexit before its first loop reads the destroyed list).
  infoDLS warm_up{nullptr};
  DLS_Parameters_Setup(MPI_COMM_WORLD, &warm_up, 1, -1, -1, 1, 0.013716, 0.0605, 0, 1.0, 1.0);
  DLS_StartLoop(&warm_up, 0, -1, STATIC);
  DLS_EndLoop(&warm_up, nullptr, nullptr);
  DLS_Finalize(&warm_up);
  std::atexit(finalize_at_exit);
}

void check_capi(const std::uint8_t* data, std::size_t size) {
  static const bool table_done = [] {
    for (const ValidProgram& v : valid_programs()) run_valid_program(v);
    return true;
  }();
  (void)table_done;
  ByteReader in(data, size);
  Session session(in);
  try {
    session.run();
  } catch (const JobEnded& e) {
    if (verbose()) std::fprintf(stderr, "the job ends: %s\n", e.message.c_str());
    expect(e.message.rfind("lb4mpi", 0) == 0, [&] { return "a C API error that does not start with \"lb4mpi\": " + e.message; });
  }
}

}  // namespace lb4mpi::fuzz
