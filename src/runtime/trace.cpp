#include "runtime/trace.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <type_traits>

#include "lb4mpi/techniques/chunk_calculator.hpp"
#include "lb4mpi/types.hpp"
#include "runtime/mpi_util.hpp"

namespace lb4mpi::detail {
namespace {

// Pieces that ended on this thread, over every loop: a recorder whose chunk
// sees this count move between two of its pieces knows that another loop's
// piece ran in between.
thread_local std::uint64_t pieces_ended = 0;

struct Stored {
  TraceRecord r;
  Technique technique;
  Mode mode;
};

// What rank 0 has written to a JSON trace file in this process: each
// execution's events are appended (the first write of a process replaces
// the file), and the file stays one valid document: its closing "]}" is
// overwritten by the next execution's events and written again after them.
struct TraceFile {
  long tail = -1;       ///< offset of the closing "\n]}\n"; -1: not written yet
  int ranks_named = 0;  ///< ranks 0 .. ranks_named - 1 have their track names
};
std::map<std::string, TraceFile>& trace_files() {
  static std::map<std::string, TraceFile> s;
  return s;
}

// CSV files (trace CSV, per-rank iteration CSVs) this process has written
// to: the first write truncates (a file from an earlier run is replaced) and
// writes the header, later ones append.
std::mutex csv_mutex;
std::set<std::string>& csv_written() {
  static std::set<std::string> s;
  return s;
}
std::string csv_key(const std::string& path) {
  std::error_code ec;
  std::filesystem::path key = std::filesystem::weakly_canonical(path, ec);
  if (ec) key = std::filesystem::absolute(path, ec);
  return key.string();
}
bool csv_written_before(const std::string& path) {
  std::lock_guard<std::mutex> lock(csv_mutex);
  return csv_written().count(csv_key(path)) != 0;
}
void mark_csv_written(const std::string& path) {
  std::lock_guard<std::mutex> lock(csv_mutex);
  csv_written().insert(csv_key(path));
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Stamps are printed from whole nanoseconds: an event's end (ts + dur) is
// then exactly the instant it was recorded as, so events that touch stay
// touching and nested ones stay nested after a viewer reads them back.
long long to_ns(double seconds) { return std::llround(seconds * 1e9); }

// "<us>.<ns>" for a count of nanoseconds.
void print_us(std::FILE* f, long long ns) {
  if (ns < 0) {
    std::fputc('-', f);
    ns = -ns;
  }
  std::fprintf(f, "%lld.%03lld", ns / 1000, ns % 1000);
}

void write_json(const std::string& path, const std::vector<Stored>& all, int ranks) {
  TraceFile& tf = trace_files()[path];
  const bool fresh = tf.tail < 0;
  std::FILE* f = std::fopen(path.c_str(), fresh ? "w" : "r+");
  if (f == nullptr || (!fresh && std::fseek(f, tf.tail, SEEK_SET) != 0)) {
    if (f != nullptr) std::fclose(f);
    throw Error("lb4mpi: cannot write the trace file '" + path + "'");
  }
  bool first = fresh;
  auto sep = [&] {
    if (!first) std::fprintf(f, ",\n");
    first = false;
  };
  if (fresh) {
    std::fprintf(f, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
    sep();
    std::fprintf(f, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"lb4mpi\"}}");
  }
  int max_rank = ranks - 1;  // every rank of the communicator, with or without chunks
  for (const Stored& s : all) max_rank = std::max(max_rank, s.r.rank);
  for (int r = tf.ranks_named; r <= max_rank; ++r) {
    sep();
    std::fprintf(f, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":%d,\"args\":{\"name\":\"rank %d\"}}", r, r);
  }
  tf.ranks_named = std::max(tf.ranks_named, max_rank + 1);
  for (const Stored& s : all) {
    const TraceRecord& r = s.r;
    sep();
    const long long ts = to_ns(r.t_begin);
    const long long dur = std::max(0LL, to_ns(r.t_end) - ts);
    const std::string technique(name(s.technique));
    const std::string mode(name(s.mode));
    switch (r.kind) {
      case kTraceChunk:
        std::fprintf(f, "{\"name\":\"loop %d\",\"cat\":\"chunk\",\"ph\":\"X\",\"pid\":0,\"tid\":%d,\"ts\":", r.loop,
                     r.rank);
        print_us(f, ts);
        std::fprintf(f, ",\"dur\":");
        print_us(f, dur);
        std::fprintf(f,
                     ",\"args\":{\"loop\":%d,\"step\":%d,\"start\":%lld,\"size\":%lld,\"technique\":\"%s\","
                     "\"mode\":\"%s\",\"obtain_us\":%.3f}}",
                     r.loop, r.step, static_cast<long long>(r.start), static_cast<long long>(r.size),
                     technique.c_str(), mode.c_str(), (r.t_begin - r.t_request) * 1e6);
        break;
      case kTraceContinuation:
        std::fprintf(f,
                     "{\"name\":\"loop %d (continued)\",\"cat\":\"continuation\",\"ph\":\"X\",\"pid\":0,\"tid\":%d,"
                     "\"ts\":",
                     r.loop, r.rank);
        print_us(f, ts);
        std::fprintf(f, ",\"dur\":");
        print_us(f, dur);
        std::fprintf(f,
                     ",\"args\":{\"loop\":%d,\"step\":%d,\"start\":%lld,\"size\":%lld,\"technique\":\"%s\","
                     "\"mode\":\"%s\",\"continued\":true}}",
                     r.loop, r.step, static_cast<long long>(r.start), static_cast<long long>(r.size),
                     technique.c_str(), mode.c_str());
        break;
      default:
        std::fprintf(f, "{\"name\":\"serve requests\",\"cat\":\"serve\",\"ph\":\"X\",\"pid\":0,\"tid\":%d,\"ts\":",
                     r.rank);
        print_us(f, ts);
        std::fprintf(f, ",\"dur\":");
        print_us(f, dur);
        std::fprintf(f, ",\"args\":{\"loop\":%d,\"step\":%d}}", r.loop, r.step);
        break;
    }
  }
  tf.tail = std::ftell(f);
  std::fprintf(f, "\n]}\n");
  const bool failed = std::ferror(f) != 0 || tf.tail < 0;
  if (std::fclose(f) != 0 || failed) {
    tf = TraceFile{};  // start afresh next time
    throw Error("lb4mpi: cannot write the trace file '" + path + "'");
  }
}

const char* kind_name(std::int32_t kind) {
  switch (kind) {
    case kTraceChunk:
      return "chunk";
    case kTraceContinuation:
      return "continuation";
    default:
      return "serve";
  }
}

void write_csv(const std::string& path, const std::vector<Stored>& all) {
  const bool first_write = !csv_written_before(path);
  std::FILE* f = std::fopen(path.c_str(), first_write ? "w" : "a");
  if (f == nullptr) throw Error("lb4mpi: cannot write the trace file '" + path + "'");
  mark_csv_written(path);
  if (first_write) std::fprintf(f, "kind,rank,loop,step,technique,mode,start,size,t_request_s,t_begin_s,t_end_s\n");
  for (const Stored& s : all) {
    const TraceRecord& r = s.r;
    std::fprintf(f, "%s,%d,%d,%d,%s,%s,%lld,%lld,%.9f,%.9f,%.9f\n", kind_name(r.kind), r.rank, r.loop, r.step,
                 std::string(name(s.technique)).c_str(), std::string(name(s.mode)).c_str(),
                 static_cast<long long>(r.start), static_cast<long long>(r.size), r.t_request, r.t_begin, r.t_end);
  }
  const bool failed = std::ferror(f) != 0;
  if (std::fclose(f) != 0 || failed) throw Error("lb4mpi: cannot write the trace file '" + path + "'");
}

// The MPI datatype of one TraceRecord (its extent is sizeof(TraceRecord)).
class RecordType {
 public:
  RecordType() {
    static_assert(std::is_standard_layout_v<TraceRecord>);
    static_assert(offsetof(TraceRecord, step) == offsetof(TraceRecord, kind) + 3 * sizeof(std::int32_t));
    static_assert(offsetof(TraceRecord, size) == offsetof(TraceRecord, start) + sizeof(std::int64_t));
    static_assert(offsetof(TraceRecord, t_end) == offsetof(TraceRecord, t_request) + 2 * sizeof(double));
    int lengths[3] = {4, 2, 3};
    MPI_Aint displs[3] = {static_cast<MPI_Aint>(offsetof(TraceRecord, kind)),
                          static_cast<MPI_Aint>(offsetof(TraceRecord, start)),
                          static_cast<MPI_Aint>(offsetof(TraceRecord, t_request))};
    MPI_Datatype types[3] = {MPI_INT32_T, MPI_INT64_T, MPI_DOUBLE};
    MPI_Datatype packed = MPI_DATATYPE_NULL;
    check_mpi(MPI_Type_create_struct(3, lengths, displs, types, &packed), "MPI_Type_create_struct");
    const int rc = MPI_Type_create_resized(packed, 0, static_cast<MPI_Aint>(sizeof(TraceRecord)), &type_);
    MPI_Type_free(&packed);
    check_mpi(rc, "MPI_Type_create_resized");
    check_mpi(MPI_Type_commit(&type_), "MPI_Type_commit");
  }
  ~RecordType() { MPI_Type_free(&type_); }
  RecordType(const RecordType&) = delete;
  RecordType& operator=(const RecordType&) = delete;
  [[nodiscard]] MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

// Outcome of rank 0's preparation of the gather, broadcast to every rank.
enum GatherStatus : std::int64_t { kGatherOk = 0, kGatherTooMany = 1, kGatherNoMemory = 2 };

std::string gather_error(std::int64_t status, std::int64_t total, int ranks) {
  const std::string what = std::to_string(total) + " trace records (" +
                           std::to_string(static_cast<unsigned long long>(total) * sizeof(TraceRecord)) +
                           " bytes) from " + std::to_string(ranks) + " ranks";
  if (status == kGatherTooMany) {
    return "lb4mpi: cannot gather the trace at rank 0: " + what + " exceed what one MPI_Gatherv can carry (" +
           std::to_string(INT_MAX) + " records); trace fewer chunks (fewer time steps or iterations, larger chunks)";
  }
  return "lb4mpi: cannot gather the trace at rank 0: it cannot allocate " + what +
         "; trace fewer chunks (fewer time steps or iterations, larger chunks)";
}

}  // namespace

TraceGatherPlan plan_trace_gather(const std::vector<std::int64_t>& records_per_rank) {
  TraceGatherPlan plan;
  plan.counts.reserve(records_per_rank.size());
  plan.displs.reserve(records_per_rank.size());
  std::int64_t total = 0;
  for (std::size_t r = 0; r < records_per_rank.size(); ++r) {
    const std::int64_t c = records_per_rank[r];
    if (c < 0) throw Error("lb4mpi: internal error: rank " + std::to_string(r) + " has a negative record count");
    if (c > INT_MAX - total) {
      throw Error("lb4mpi: cannot gather the trace at rank 0: more than " + std::to_string(INT_MAX) +
                  " records (rank " + std::to_string(r) + " has " + std::to_string(c) + ", ranks before it " +
                  std::to_string(total) + ")");
    }
    plan.displs.push_back(static_cast<int>(total));
    plan.counts.push_back(static_cast<int>(c));
    total += c;
  }
  plan.total = total;
  return plan;
}

std::size_t trace_reserve_estimate(const Options& o, Index n, int p, int rank) {
  constexpr std::size_t kMin = 16;
  if (n <= 0) return kMin;
  p = std::max(p, 1);
  const double np = static_cast<double>(n);
  const double pp = static_cast<double>(p);
  const Index min_chunk = std::max<Index>(1, o.params.min_chunk);
  const double most = std::ceil(np / static_cast<double>(min_chunk));  // no more chunks than this
  double total = 0.0;                                                 // chunks of the whole loop
  switch (o.technique) {
    case Technique::STATIC:
      total = pp;
      break;
    case Technique::SS:
      total = most;
      break;
    case Technique::FSC:
    case Technique::mFSC:
      // One fixed chunk size: the closed form of step 0 gives it.
      try {
        const ChunkCalculator calc(o.technique, LoopShape{n, p}, o.params);
        total = std::ceil(np / static_cast<double>(std::max<Index>(1, calc.closed_size(0))));
      } catch (const Error&) {
        total = most;
      }
      break;
    default:
      // Decreasing and adaptive chunk sizes: about P chunks per halving of
      // the remaining work (FAC2, WF, AWF*: P log2(N/P) + P; GSS, TAP, AF
      // fewer; TSS, TFSS, FISS, VISS, RND far fewer), with a margin.
      total = pp * (1.25 * std::log2(np / pp + 1.0) + 4.0);
      break;
  }
  if (o.params.max_chunk > 0) total = std::max(total, std::ceil(np / static_cast<double>(o.params.max_chunk)));
  total = std::min(total, most);
  // This rank's share, twice the even one (faster ranks take more chunks),
  // and on a coordinator that serves requests one serve interval per chunk.
  double mine = 2.0 * std::ceil(total / pp) + static_cast<double>(kMin);
  if (o.mode != Mode::DistributedRMA && rank == o.coordinator) mine += total + pp;
  if (!(mine < static_cast<double>(kTraceReserveCap))) return kTraceReserveCap;
  return static_cast<std::size_t>(mine);
}

void Recorder::configure(const Options& o, int loop_id, int rank) {
  trace_ = !o.trace.empty();
  iterations_ = o.iterations_info;
  on_ = trace_ || iterations_;
  loop_ = loop_id;
  rank_ = rank;
  trace_path_ = o.trace;
  iterations_dir_ = o.iterations_dir.empty() ? std::string("lb4mpi_iterations") : o.iterations_dir;
}

void Recorder::begin(const Options& o, Index n, int p) {
  clear();
  if (!on_) return;
  const std::size_t want = trace_reserve_estimate(o, n, p, rank_);
  if (records_.capacity() < want) records_.reserve(want);
}

void Recorder::chunk(std::int32_t step, std::int64_t start, std::int64_t size, double t_request, double t_begin) {
  if (!on_) return;
  TraceRecord r;
  r.kind = kTraceChunk;
  r.rank = rank_;
  r.loop = loop_;
  r.step = step;
  r.start = start;
  r.size = size;
  r.t_request = t_request;
  r.t_begin = t_begin;
  r.t_end = t_begin;
  current_ = records_.size();
  run_ = current_;
  mark_ = pieces_ended;
  records_.push_back(r);
}

void Recorder::chunk_progress(double t_begin, double t_end) {
  const std::uint64_t before = pieces_ended++;
  if (!on_ || current_ >= records_.size()) return;
  if (before == mark_ && run_ < records_.size()) {
    records_[run_].t_end = t_end;  // the run goes on
  } else {
    // Another loop's piece ran since this chunk's last piece: a new run.
    const TraceRecord& c = records_[current_];
    TraceRecord r;
    r.kind = kTraceContinuation;
    r.rank = c.rank;
    r.loop = c.loop;
    r.step = c.step;
    r.start = c.start;
    r.size = c.size;
    r.t_request = t_begin;
    r.t_begin = t_begin;
    r.t_end = t_end;
    run_ = records_.size();
    records_.push_back(r);
  }
  mark_ = before + 1;
}

void Recorder::serve(std::int32_t step, double t0, double t1) {
  if (!trace_) return;
  TraceRecord r;
  r.kind = kTraceServe;
  r.rank = rank_;
  r.loop = loop_;
  r.step = step;
  r.t_request = t0;
  r.t_begin = t0;
  r.t_end = t1;
  records_.push_back(r);
}

void Recorder::write_iterations(int rank, Technique technique) const {
  // `000` Table 4.2: one CSV per rank with the chunks it executed, one row
  // per chunk; t_end_s is when its last piece ended (its last run).
  std::error_code ec;
  std::filesystem::create_directories(iterations_dir_, ec);
  const std::string path = iterations_dir_ + "/iterations_rank" + std::to_string(rank) + ".csv";
  const bool first_write = !csv_written_before(path);
  std::ofstream out(path, first_write ? std::ios::trunc : std::ios::app);
  if (!out) throw Error("lb4mpi: cannot write '" + path + "'");
  mark_csv_written(path);
  if (first_write) out << "loop,step,technique,start,size,t_begin_s,t_end_s\n";
  const std::size_t n = records_.size();
  for (std::size_t i = 0; i < n; ++i) {
    const TraceRecord& r = records_[i];
    if (r.kind != kTraceChunk) continue;
    // Its continuations follow it, before this loop's next chunk.
    double end = r.t_end;
    for (std::size_t j = i + 1; j < n && records_[j].kind != kTraceChunk; ++j) {
      if (records_[j].kind == kTraceContinuation) end = std::max(end, records_[j].t_end);
    }
    out << r.loop << ',' << r.step << ',' << name(technique) << ',' << r.start << ',' << r.size << ','
        << r.t_begin << ',' << end << '\n';
  }
  out.flush();
  if (!out) throw Error("lb4mpi: cannot write '" + path + "'");
}

void Recorder::flush(MPI_Comm comm, int rank, Technique technique, Mode mode) {
  if (!on_) return;
  struct ClearAtExit {
    Recorder& r;
    ~ClearAtExit() { r.clear(); }
  } clear_at_exit{*this};
  std::string trace_error;    // rank 0 could not write a trace file
  std::string gather_failed;  // the records could not be gathered (every rank)
  if (trace_) {
    int size = 0;
    check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    const std::int64_t mine = static_cast<std::int64_t>(records_.size());
    std::vector<std::int64_t> counts(rank == 0 ? static_cast<std::size_t>(size) : 0);
    check_mpi(MPI_Gather(&mine, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, 0, comm), "MPI_Gather");
    // Rank 0 checks that the gather fits and allocates its buffer, then
    // tells every rank whether to go on: no rank is left in a collective.
    std::int64_t verdict[2] = {kGatherOk, 0};  // status, total records
    TraceGatherPlan plan;
    std::vector<TraceRecord> all;
    if (rank == 0) {
      for (std::int64_t c : counts) verdict[1] += c;
      try {
        plan = plan_trace_gather(counts);
        all.resize(static_cast<std::size_t>(plan.total));
      } catch (const Error&) {
        verdict[0] = kGatherTooMany;
      } catch (const std::bad_alloc&) {
        verdict[0] = kGatherNoMemory;
      } catch (const std::length_error&) {
        verdict[0] = kGatherNoMemory;
      }
    }
    check_mpi(MPI_Bcast(verdict, 2, MPI_INT64_T, 0, comm), "MPI_Bcast");
    if (verdict[0] != kGatherOk) {
      gather_failed = gather_error(verdict[0], verdict[1], size);
    } else {
      const RecordType type;
      check_mpi(MPI_Gatherv(records_.data(), static_cast<int>(mine), type.get(), all.data(), plan.counts.data(),
                            plan.displs.data(), type.get(), 0, comm),
                "MPI_Gatherv");
    }
    if (rank == 0 && gather_failed.empty()) {
      try {
        // This execution's records, appended to what the files already hold.
        std::vector<Stored> kept;
        kept.reserve(all.size());
        for (const TraceRecord& r : all) kept.push_back(Stored{r, technique, mode});
        if (ends_with(trace_path_, ".json")) {
          write_json(trace_path_, kept, size);
        } else if (ends_with(trace_path_, ".csv")) {
          write_csv(trace_path_, kept);
        } else {
          write_json(trace_path_ + ".json", kept, size);
          write_csv(trace_path_ + ".csv", kept);
        }
      } catch (const Error& e) {
        trace_error = e.what();
      }
    }
  }
  if (iterations_) write_iterations(rank, technique);
  if (!gather_failed.empty()) throw Error(gather_failed);
  if (!trace_error.empty()) throw Error(trace_error);
}

}  // namespace lb4mpi::detail
