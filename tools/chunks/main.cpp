// lb4mpi-chunks: prints the chunk sizes a technique hands out for N
// iterations over P ranks, without MPI.
//
//   lb4mpi-chunks                                  # all 21 techniques side by side
//   lb4mpi-chunks --technique all --form closed    # `001` Table 2 (N = 1000, P = 4)
//   lb4mpi-chunks --technique GSS --form closed    # one technique, listing
//   lb4mpi-chunks -t FAC2 -n 100000 -p 16 --format csv
//
// Exit codes: 0 ok, 2 bad input (the message names the valid choices).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "format.hpp"
#include "lb4mpi/techniques/chunk_calculator.hpp"
#include "lb4mpi/techniques/params.hpp"
#include "lb4mpi/techniques/technique.hpp"
#include "lb4mpi/types.hpp"

namespace {

using lb4mpi::Form;
using lb4mpi::Technique;

constexpr int kBadInput = 2;
// Overview rows of at most this many chunks are printed whole (wrapped).
constexpr lb4mpi::Index kWholeRowChunks = 40;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

struct Settings {
  std::string technique = "all";
  lb4mpi::Index iterations = 1000;
  int ranks = 4;
  std::string form = "recursive";
  std::string rnd_bounds = "unit";
  std::string format = "table";
  bool full = false;
  lb4mpi::TechniqueParams params;
};

Form parse_form(const std::string& text) {
  const std::string s = lower(text);
  if (s == "recursive") return Form::Recursive;
  if (s == "closed") return Form::Closed;
  throw lb4mpi::Error("unknown form '" + text + "'; valid forms: recursive, closed");
}

lb4mpi::RndBounds parse_rnd_bounds(const std::string& text) {
  const std::string s = lower(text);
  if (s == "unit") return lb4mpi::RndBounds::Unit;
  if (s == "paper004") return lb4mpi::RndBounds::Paper004;
  throw lb4mpi::Error("unknown RND bounds '" + text + "'; valid: unit, paper004");
}

std::string closed_form_techniques() {
  std::string names;
  for (const auto& ti : lb4mpi::all_techniques()) {
    if (!ti.has_closed_form) continue;
    if (!names.empty()) names += ", ";
    names += ti.name;
  }
  return names;
}

std::string form_name(Form f) { return f == Form::Closed ? "closed" : "recursive"; }

std::string heading(const Settings& s, Form form) {
  return "N = " + std::to_string(s.iterations) + " iterations, P = " + std::to_string(s.ranks) +
         " ranks, " + form_name(form) + " form";
}

int run_one(const Settings& s, Technique t, Form form, bool csv) {
  const auto& ti = lb4mpi::info(t);
  if (form == Form::Closed && !ti.has_closed_form) {
    throw lb4mpi::Error(std::string(ti.name) +
                        " has no closed form; techniques with one: " + closed_form_techniques());
  }
  s.params.validate(t, s.iterations, s.ranks);
  const auto chunks = lb4mpi::simulate_chunks(t, {s.iterations, s.ranks}, s.params, form);
  if (csv) {
    lb4mpi::chunks_tool::write_csv(std::cout, chunks, "", true);
    return 0;
  }
  std::string title =
      std::string(ti.name) + ": " + heading(s, form) + "  [" + std::string(ti.equation) + "]";
  lb4mpi::chunks_tool::write_listing(std::cout, title, chunks);
  if (ti.adaptive) {
    std::cout << "(adaptive: simulated with ranks of equal speed)\n";
  }
  return 0;
}

int run_all(const Settings& s, Form form, bool csv) {
  std::vector<lb4mpi::chunks_tool::OverviewRow> rows;
  std::vector<std::string> skipped;
  for (const auto& ti : lb4mpi::all_techniques()) {
    s.params.validate(ti.technique, s.iterations, s.ranks);
  }
  for (const auto& ti : lb4mpi::all_techniques()) {
    if (form == Form::Closed && !ti.has_closed_form) {
      skipped.emplace_back(ti.name);
      continue;
    }
    auto chunks = lb4mpi::simulate_chunks(ti.technique, {s.iterations, s.ranks}, s.params, form);
    std::string label(ti.name);
    if (ti.adaptive && !csv) label += "*";
    rows.push_back({std::move(label), std::move(chunks)});
  }
  std::string skipped_note;
  for (const auto& n : skipped) skipped_note += (skipped_note.empty() ? "" : ", ") + n;

  if (csv) {
    bool header = true;
    for (const auto& row : rows) {
      lb4mpi::chunks_tool::write_csv(std::cout, row.chunks, row.technique, header);
      header = false;
    }
    if (!skipped.empty()) {
      std::cerr << "lb4mpi-chunks: no closed form, skipped: " << skipped_note << "\n";
    }
    return 0;
  }
  std::cout << "lb4mpi-chunks: " << heading(s, form) << "\n"
            << "* adaptive: simulated with ranks of equal speed\n\n";
  lb4mpi::chunks_tool::write_overview(
      std::cout, rows, 100, s.full ? std::numeric_limits<lb4mpi::Index>::max() : kWholeRowChunks);
  if (!skipped.empty()) {
    std::cout << "\nno closed form, skipped: " << skipped_note << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  auto& p = s.params;
  CLI::App app{
      "lb4mpi-chunks: the chunk sizes of lb4mpi's loop scheduling techniques "
      "(no MPI; adaptive techniques are simulated with ranks of equal speed)",
      "lb4mpi-chunks"};
  app.option_defaults()->always_capture_default();
  app.add_option("-t,--technique", s.technique,
                 "technique name or `000` id, or `all` for a side-by-side table; one of: " +
                     lb4mpi::valid_technique_names());
  app.add_option("-n,--iterations", s.iterations, "N, iterations of the loop");
  app.add_option("-p,--ranks", s.ranks, "P, ranks (processing elements)");
  app.add_option("--form", s.form, "recursive (coordinator, CCA) or closed (DCA)");
  app.add_option("--min-chunk", p.min_chunk, "smallest chunk (but the last)");
  app.add_option("--max-chunk", p.max_chunk, "largest chunk, 0 = no cap");
  app.add_option("--overhead", p.h, "FSC: scheduling overhead h of one chunk [s]");
  app.add_option("--sigma", p.sigma, "FSC, TAP, FAC: std. deviation of an iteration's time [s]");
  app.add_option("--mu", p.mu, "TAP, FAC: mean of an iteration's time [s]");
  app.add_option("--alpha", p.alpha, "TAP: confidence factor");
  app.add_option("--fiss-batches", p.fiss_batches, "FISS: number of batches B (>= 2)");
  app.add_option("--viss-x", p.viss_x, "VISS: X, first chunk N/(X*P)");
  app.add_option("--pls-swr", p.pls_swr, "PLS: static workload ratio in [0, 1]");
  app.add_option("--rnd-bounds", s.rnd_bounds, "RND: unit ([1, N/P]) or paper004");
  app.add_option("--seed", p.seed, "RND: seed of the draws");
  app.add_option("--weights", p.weights, "WF: one weight per rank, comma-separated")
      ->delimiter(',');
  app.add_option("--format", s.format, "table or csv (csv: step,start,size)");
  app.add_flag("--full", s.full,
               "with --technique all: print every row whole (wrapped); by default rows of more "
               "than " + std::to_string(kWholeRowChunks) +
                   " chunks are abridged as 'first, second, ..., last'");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : kBadInput;
  }

  try {
    const Form form = parse_form(s.form);
    p.rnd_bounds = parse_rnd_bounds(s.rnd_bounds);
    const std::string format = lower(s.format);
    if (format != "table" && format != "csv") {
      throw lb4mpi::Error("unknown format '" + s.format + "'; valid formats: table, csv");
    }
    const bool csv = format == "csv";
    if (lower(s.technique) == "all") return run_all(s, form, csv);
    return run_one(s, lb4mpi::parse_technique(s.technique), form, csv);
  } catch (const lb4mpi::Error& e) {
    std::cerr << "lb4mpi-chunks: error: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "lb4mpi-chunks: internal error: " << e.what() << "\n";
    return 1;
  }
}
