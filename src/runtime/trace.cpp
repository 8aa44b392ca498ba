#include "runtime/trace.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "lb4mpi/types.hpp"
#include "runtime/mpi_util.hpp"

namespace lb4mpi::detail {
namespace {

struct Stored {
  TraceRecord r;
  Technique technique;
  Mode mode;
};

// Rank 0 keeps every execution written to a path in this process, so that
// each file is rewritten whole and stays one valid document.
std::map<std::string, std::vector<Stored>>& store() {
  static std::map<std::string, std::vector<Stored>> s;
  return s;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void write_json(const std::string& path, const std::vector<Stored>& all, int ranks) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) throw Error("lb4mpi: cannot write the trace file '" + path + "'");
  std::fprintf(f, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
  int max_rank = ranks - 1;  // every rank of the communicator, with or without chunks
  for (const Stored& s : all) max_rank = std::max(max_rank, s.r.rank);
  bool first = true;
  auto sep = [&] {
    if (!first) std::fprintf(f, ",\n");
    first = false;
  };
  sep();
  std::fprintf(f, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"lb4mpi\"}}");
  for (int r = 0; r <= max_rank; ++r) {
    sep();
    std::fprintf(f, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":%d,\"args\":{\"name\":\"rank %d\"}}", r, r);
  }
  for (const Stored& s : all) {
    const TraceRecord& r = s.r;
    sep();
    const double ts = r.t_begin * 1e6;
    const double dur = (r.t_end - r.t_begin) * 1e6;
    if (r.kind == 0) {
      std::fprintf(f,
                   "{\"name\":\"loop %d\",\"cat\":\"chunk\",\"ph\":\"X\",\"pid\":0,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,"
                   "\"args\":{\"loop\":%d,\"step\":%d,\"start\":%lld,\"size\":%lld,\"technique\":\"%s\",\"mode\":\"%s\","
                   "\"obtain_us\":%.3f}}",
                   r.loop, r.rank, ts, dur, r.loop, r.step, static_cast<long long>(r.start),
                   static_cast<long long>(r.size), std::string(name(s.technique)).c_str(),
                   std::string(name(s.mode)).c_str(), (r.t_begin - r.t_request) * 1e6);
    } else {
      std::fprintf(f,
                   "{\"name\":\"serve requests\",\"cat\":\"serve\",\"ph\":\"X\",\"pid\":0,\"tid\":%d,\"ts\":%.3f,"
                   "\"dur\":%.3f,\"args\":{\"loop\":%d,\"step\":%d}}",
                   r.rank, ts, dur, r.loop, r.step);
    }
  }
  std::fprintf(f, "\n]}\n");
  std::fclose(f);
}

void write_csv(const std::string& path, const std::vector<Stored>& all) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) throw Error("lb4mpi: cannot write the trace file '" + path + "'");
  std::fprintf(f, "kind,rank,loop,step,technique,mode,start,size,t_request_s,t_begin_s,t_end_s\n");
  for (const Stored& s : all) {
    const TraceRecord& r = s.r;
    std::fprintf(f, "%s,%d,%d,%d,%s,%s,%lld,%lld,%.9f,%.9f,%.9f\n", r.kind == 0 ? "chunk" : "serve", r.rank, r.loop,
                 r.step, std::string(name(s.technique)).c_str(), std::string(name(s.mode)).c_str(),
                 static_cast<long long>(r.start), static_cast<long long>(r.size), r.t_request, r.t_begin, r.t_end);
  }
  std::fclose(f);
}

}  // namespace

void Recorder::configure(const Options& o, int loop_id, int rank) {
  trace_ = !o.trace.empty();
  iterations_ = o.iterations_info;
  on_ = trace_ || iterations_;
  loop_ = loop_id;
  rank_ = rank;
  trace_path_ = o.trace;
  iterations_dir_ = o.iterations_dir.empty() ? std::string("lb4mpi_iterations") : o.iterations_dir;
  if (on_ && records_.capacity() == 0) records_.reserve(4096);
}

void Recorder::chunk(std::int32_t step, std::int64_t start, std::int64_t size, double t_request, double t_begin) {
  if (!on_) return;
  TraceRecord r;
  r.kind = 0;
  r.rank = rank_;
  r.loop = loop_;
  r.step = step;
  r.start = start;
  r.size = size;
  r.t_request = t_request;
  r.t_begin = t_begin;
  r.t_end = t_begin;
  current_ = records_.size();
  records_.push_back(r);
}

void Recorder::serve(std::int32_t step, double t0, double t1) {
  if (!trace_) return;
  TraceRecord r;
  r.kind = 1;
  r.rank = rank_;
  r.loop = loop_;
  r.step = step;
  r.t_request = t0;
  r.t_begin = t0;
  r.t_end = t1;
  records_.push_back(r);
}

void Recorder::flush(MPI_Comm comm, int rank, Technique technique, Mode mode) {
  if (!on_) return;
  if (iterations_) {
    // `000` Table 4.2: one CSV per rank with the chunks it executed.
    std::error_code ec;
    std::filesystem::create_directories(iterations_dir_, ec);
    const std::string path = iterations_dir_ + "/iterations_rank" + std::to_string(rank) + ".csv";
    const bool fresh = !std::filesystem::exists(path);
    std::ofstream out(path, std::ios::app);
    if (!out) throw Error("lb4mpi: cannot write '" + path + "'");
    if (fresh) out << "loop,step,technique,start,size,t_begin_s,t_end_s\n";
    for (const TraceRecord& r : records_) {
      if (r.kind != 0) continue;
      out << r.loop << ',' << r.step << ',' << name(technique) << ',' << r.start << ',' << r.size << ','
          << r.t_begin << ',' << r.t_end << '\n';
    }
  }
  if (trace_) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    const int bytes = static_cast<int>(records_.size() * sizeof(TraceRecord));
    std::vector<int> counts(static_cast<std::size_t>(size));
    check_mpi(MPI_Gather(&bytes, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm), "MPI_Gather");
    std::vector<int> displs(counts.size(), 0);
    std::vector<TraceRecord> all;
    if (rank == 0) {
      for (std::size_t i = 1; i < counts.size(); ++i) displs[i] = displs[i - 1] + counts[i - 1];
      all.resize(static_cast<std::size_t>(displs.back() + counts.back()) / sizeof(TraceRecord));
    }
    check_mpi(MPI_Gatherv(records_.data(), bytes, MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE, 0,
                          comm),
              "MPI_Gatherv");
    if (rank == 0) {
      std::vector<Stored>& kept = store()[trace_path_];
      for (const TraceRecord& r : all) kept.push_back(Stored{r, technique, mode});
      if (ends_with(trace_path_, ".json")) {
        write_json(trace_path_, kept, size);
      } else if (ends_with(trace_path_, ".csv")) {
        write_csv(trace_path_, kept);
      } else {
        write_json(trace_path_ + ".json", kept, size);
        write_csv(trace_path_ + ".csv", kept);
      }
    }
  }
  clear();
}

}  // namespace lb4mpi::detail
