#include "writers.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <string>

namespace lb4mpi::trace {
namespace {

// The Chrome trace's track (tid) of a leader's global chunks: below every
// rank's own track (hierarchical mode).
constexpr int kGlobalTrack = 1 << 20;

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

// A text as the inside of a JSON string.
std::string json_escaped(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

// The error of a trace file that could not be written at the end of a loop,
// with the system's reason (`err`: errno at the failure; 0 when unknown).
[[noreturn]] void trace_write_failed(const std::string& path, int err) {
  throw Error("lb4mpi: cannot write the trace file '" + path + "' (LB4MPI_TRACE): " +
              (err != 0 ? std::strerror(err) : "write error"));
}

void write_json(const std::string& path, const std::vector<Stored>& all, int ranks, const std::string& selection) {
  TraceFile& tf = trace_files()[path];
  const bool fresh = tf.tail < 0;
  std::FILE* f = std::fopen(path.c_str(), fresh ? "w" : "r+");
  if (f == nullptr || (!fresh && std::fseek(f, tf.tail, SEEK_SET) != 0)) {
    const int err = errno;
    if (f != nullptr) std::fclose(f);
    trace_write_failed(path, err);
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
  // Hierarchical mode: each leader's global chunks on a track of their own,
  // below the ranks (named again with every execution that has some).
  std::set<int> leaders;
  for (const Stored& s : all) {
    if (s.r.kind == kTraceGlobal) leaders.insert(s.r.rank);
  }
  for (int r : leaders) {
    sep();
    std::fprintf(f,
                 "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":%d,\"args\":{\"name\":\"node of rank %d: "
                 "global chunks\"}}",
                 kGlobalTrack + r, r);
  }
  if (!selection.empty() && !all.empty()) {  // automatic selection: which technique this execution ran, and why
    double t0 = all.front().r.t_begin;
    for (const Stored& s : all) t0 = std::min(t0, s.r.t_begin);
    sep();
    std::fprintf(f, "{\"name\":\"auto: %s\",\"cat\":\"selection\",\"ph\":\"i\",\"s\":\"g\",\"pid\":0,\"tid\":0,\"ts\":",
                 std::string(name(all.front().technique)).c_str());
    print_us(f, to_ns(t0));
    std::fprintf(f, ",\"args\":{\"loop\":%d,\"step\":%d,\"technique\":\"%s\",\"reason\":\"%s\"}}",
                 all.front().r.loop, all.front().r.step, std::string(name(all.front().technique)).c_str(),
                 json_escaped(selection).c_str());
  }
  for (const Stored& s : all) {
    const TraceRecord& r = s.r;
    sep();
    const long long ts = to_ns(r.t_begin);
    const long long dur = std::max(0LL, to_ns(r.t_end) - ts);
    const std::string technique(name(s.technique));
    const std::string mode(name(s.mode));
    // {"name":…,"cat":…,"ph":"X","pid":0,"tid":rank,"ts":…,"dur":…,"args":{"loop":…,"step":…
    const auto head = [&](const std::string& event, const char* cat) {
      std::fprintf(f, "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":0,\"tid\":%d,\"ts\":", event.c_str(), cat,
                   r.kind == kTraceGlobal ? kGlobalTrack + r.rank : r.rank);
      print_us(f, ts);
      std::fprintf(f, ",\"dur\":");
      print_us(f, dur);
      std::fprintf(f, ",\"args\":{\"loop\":%d,\"step\":%d", r.loop, r.step);
    };
    const auto chunk_args = [&] {
      std::fprintf(f, ",\"start\":%lld,\"size\":%lld,\"technique\":\"%s\",\"mode\":\"%s\"",
                   static_cast<long long>(r.start), static_cast<long long>(r.size), technique.c_str(), mode.c_str());
    };
    const std::string loop_name = "loop " + std::to_string(r.loop);
    switch (r.kind) {
      case kTraceChunk:
        head(loop_name, "chunk");
        chunk_args();
        std::fprintf(f, ",\"obtain_us\":%.3f}}", (r.t_begin - r.t_request) * 1e6);
        break;
      case kTraceContinuation:
        head(loop_name + " (continued)", "continuation");
        chunk_args();
        std::fprintf(f, ",\"continued\":true}}");
        break;
      case kTraceGlobal:  // the duration: obtaining it
        head(loop_name + " global chunk", "global");
        chunk_args();
        std::fprintf(f, ",\"obtain_us\":%.3f}}", (r.t_begin - r.t_request) * 1e6);
        break;
      default:
        head("serve requests", "serve");
        std::fprintf(f, "}}");
        break;
    }
  }
  tf.tail = std::ftell(f);
  std::fprintf(f, "\n]}\n");
  const bool failed = std::ferror(f) != 0 || tf.tail < 0;
  // A write that failed while printing left its errno (no later call clears
  // it); fclose may then have nothing left to write and no errno of its own.
  const int early = failed ? errno : 0;
  errno = 0;
  if (std::fclose(f) != 0 || failed) {
    const int err = errno != 0 ? errno : early;
    tf = TraceFile{};  // start afresh next time
    trace_write_failed(path, err);
  }
}

const char* kind_name(std::int32_t kind) {
  switch (kind) {
    case kTraceChunk:
      return "chunk";
    case kTraceContinuation:
      return "continuation";
    case kTraceGlobal:
      return "global";
    default:
      return "serve";
  }
}

void write_csv(const std::string& path, const std::vector<Stored>& all) {
  const bool first_write = !csv_written_before(path);
  std::FILE* f = std::fopen(path.c_str(), first_write ? "w" : "a");
  if (f == nullptr) trace_write_failed(path, errno);
  mark_csv_written(path);
  if (first_write) std::fprintf(f, "kind,rank,loop,step,technique,mode,start,size,t_request_s,t_begin_s,t_end_s\n");
  for (const Stored& s : all) {
    const TraceRecord& r = s.r;
    std::fprintf(f, "%s,%d,%d,%d,%s,%s,%lld,%lld,%.9f,%.9f,%.9f\n", kind_name(r.kind), r.rank, r.loop, r.step,
                 std::string(name(s.technique)).c_str(), std::string(name(s.mode)).c_str(),
                 static_cast<long long>(r.start), static_cast<long long>(r.size), r.t_request, r.t_begin, r.t_end);
  }
  const bool failed = std::ferror(f) != 0;
  const int early = failed ? errno : 0;  // as in write_json
  errno = 0;
  if (std::fclose(f) != 0 || failed) trace_write_failed(path, errno != 0 ? errno : early);
}


}  // namespace

namespace {

// The files a trace path stands for: itself (.json or .csv), or both.
std::vector<std::string> trace_files(const std::string& path) {
  if (ends_with(path, ".json") || ends_with(path, ".csv")) return {path};
  return {path + ".json", path + ".csv"};
}

}  // namespace

void write_trace(const std::string& path, const std::vector<Stored>& all, int ranks, const std::string& selection) {
  for (const std::string& file : trace_files(path)) {
    if (ends_with(file, ".json")) {
      write_json(file, all, ranks, selection);
    } else {
      write_csv(file, all);
    }
  }
}

namespace {

// "" when `file` can be created or written in its folder, else why not.
std::string cannot_write(const std::string& file) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(file).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return "its folder '" + dir.string() + "' does not exist";
  if (::access(dir.c_str(), W_OK) != 0) return "its folder '" + dir.string() + "': " + std::strerror(errno);
  if (fs::exists(file, ec) && ::access(file.c_str(), W_OK) != 0) return std::strerror(errno);
  return {};
}

}  // namespace

std::string check_outputs(const Options& o, int rank) {
  if (!o.trace.empty() && rank == 0) {  // rank 0 writes the trace
    for (const std::string& file : trace_files(o.trace)) {
      const std::string why = cannot_write(file);
      if (!why.empty()) return "lb4mpi: cannot write the trace file '" + file + "' (LB4MPI_TRACE): " + why;
    }
  }
  if (o.iterations_info) {  // every rank writes its own CSV
    std::error_code ec;
    std::filesystem::create_directories(o.iterations_dir, ec);
    if (ec) {
      return "lb4mpi: cannot create the folder '" + o.iterations_dir +
             "' for the iteration CSVs (LB4MPI_DIR_ID) on rank " + std::to_string(rank) + ": " + ec.message();
    }
    const std::string why = cannot_write(o.iterations_dir + "/iterations_rank" + std::to_string(rank) + ".csv");
    if (!why.empty()) {
      return "lb4mpi: cannot write the iteration CSV in '" + o.iterations_dir + "' (LB4MPI_DIR_ID) on rank " +
             std::to_string(rank) + ": " + why;
    }
  }
  return {};
}

void write_iterations(const std::string& dir, int rank, Technique technique, const std::vector<TraceRecord>& records_) {
  // `000` Table 4.2: one CSV per rank with the chunks it executed, one row
  // per chunk; t_end_s is when its last piece ended (its last run).
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string path = dir + "/iterations_rank" + std::to_string(rank) + ".csv";
  const bool first_write = !csv_written_before(path);
  const auto failed = [&path, rank](int err) {
    return Error("lb4mpi: cannot write the iteration CSV '" + path + "' (LB4MPI_DIR_ID) on rank " +
                 std::to_string(rank) + ": " + (err != 0 ? std::strerror(err) : "write error"));
  };
  errno = 0;
  std::ofstream out(path, first_write ? std::ios::trunc : std::ios::app);
  if (!out) throw failed(errno);
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
  errno = 0;
  out.flush();
  if (!out) throw failed(errno);
}

}  // namespace lb4mpi::trace
