#include "format.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace lb4mpi::chunks_tool {

std::vector<Run> runs(const std::vector<Chunk>& chunks) {
  std::vector<Run> out;
  for (const Chunk& c : chunks) {
    if (!out.empty() && out.back().size == c.size) {
      ++out.back().count;
    } else {
      out.push_back({c.size, 1});
    }
  }
  return out;
}

std::string format_run(const Run& run) {
  std::string s = std::to_string(run.size);
  if (run.count > 1) s += " x" + std::to_string(run.count);
  return s;
}

std::string format_runs_wrapped(const std::vector<Run>& runs, std::size_t width,
                                std::size_t indent) {
  const std::string pad(indent, ' ');
  std::string out = pad;
  std::size_t line = indent;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    std::string token = format_run(runs[i]);
    if (i + 1 < runs.size()) token += ",";
    if (line > indent && line + 1 + token.size() > width) {
      out += "\n" + pad;
      line = indent;
    } else if (line > indent) {
      out += " ";
      ++line;
    }
    out += token;
    line += token.size();
  }
  return out;
}

std::string format_runs_abridged(const std::vector<Run>& runs, std::size_t width) {
  std::string full;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (i > 0) full += ", ";
    full += format_run(runs[i]);
  }
  if (full.size() <= width || runs.size() < 2) return full;

  const std::string tail = ", ..., " + format_run(runs.back());
  std::string head;
  for (std::size_t i = 0; i + 1 < runs.size(); ++i) {
    std::string next = head.empty() ? format_run(runs[i]) : head + ", " + format_run(runs[i]);
    if (next.size() + tail.size() > width) break;
    head = std::move(next);
  }
  if (head.empty()) head = format_run(runs.front());
  return head + tail;
}

Summary summarize(const std::vector<Chunk>& chunks) {
  Summary s;
  if (chunks.empty()) return s;
  s.chunks = static_cast<Index>(chunks.size());
  s.smallest = chunks.front().size;
  s.largest = chunks.front().size;
  for (const Chunk& c : chunks) {
    s.iterations += c.size;
    s.smallest = std::min(s.smallest, c.size);
    s.largest = std::max(s.largest, c.size);
  }
  s.mean = static_cast<double>(s.iterations) / static_cast<double>(s.chunks);
  return s;
}

void write_csv(std::ostream& out, const std::vector<Chunk>& chunks, const std::string& technique,
               bool header) {
  if (header) out << (technique.empty() ? "" : "technique,") << "step,start,size\n";
  Index step = 0;
  for (const Chunk& c : chunks) {
    if (!technique.empty()) out << technique << ',';
    out << step++ << ',' << c.begin << ',' << c.size << '\n';
  }
}

namespace {
std::string format_mean(double mean) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(mean < 100.0 ? 2 : 1) << mean;
  return s.str();
}
}  // namespace

void write_listing(std::ostream& out, const std::string& title, const std::vector<Chunk>& chunks) {
  const Summary s = summarize(chunks);
  out << title << "\n";
  if (chunks.empty()) {
    out << "no chunks (empty loop)\n";
    return;
  }
  out << "chunk sizes in order (\"n xk\": k chunks of n iterations):\n"
      << format_runs_wrapped(runs(chunks), 100, 2) << "\n"
      << "chunks: " << s.chunks << "   iterations: " << s.iterations
      << "   smallest: " << s.smallest << "   largest: " << s.largest
      << "   mean: " << format_mean(s.mean) << "\n";
}

void write_overview(std::ostream& out, const std::vector<OverviewRow>& rows, std::size_t width,
                    Index whole_up_to) {
  std::size_t name_width = 9;  // "technique"
  for (const auto& row : rows) name_width = std::max(name_width, row.technique.size());
  constexpr int kNumber = 8;
  const std::size_t fixed = name_width + 3 * (kNumber + 2) + 2;
  const std::size_t sizes_width = width > fixed + 20 ? width - fixed : 20;

  out << std::left << std::setw(static_cast<int>(name_width)) << "technique" << std::right << "  "
      << std::setw(kNumber) << "chunks"
      << "  " << std::setw(kNumber) << "largest"
      << "  " << std::setw(kNumber) << "smallest"
      << "  "
      << "chunk sizes in order (n xk: k chunks of n)\n";
  for (const auto& row : rows) {
    const Summary s = summarize(row.chunks);
    out << std::left << std::setw(static_cast<int>(name_width)) << row.technique << std::right
        << "  " << std::setw(kNumber) << s.chunks << "  " << std::setw(kNumber) << s.largest << "  "
        << std::setw(kNumber) << s.smallest << "  ";
    if (s.chunks <= whole_up_to) {
      // Wrapped under the sizes column; the first line's indent is already there.
      out << format_runs_wrapped(runs(row.chunks), fixed + sizes_width, fixed).substr(fixed) << "\n";
    } else {
      out << format_runs_abridged(runs(row.chunks), sizes_width) << "\n";
    }
  }
}

}  // namespace lb4mpi::chunks_tool
