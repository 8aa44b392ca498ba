// Options: execution-model names, the LB4MPI_* environment variables and
// the fingerprint all ranks compare — both derived from one list of fields.
#include "lb4mpi/options.hpp"
#include "env.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "option_text.hpp"
#include "stealing/variables.hpp"

namespace lb4mpi {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}

/// Whether all ranks must pass a field alike, and how it enters the fingerprint.
enum class Agree : std::uint8_t {
  Yes,    ///< its value
  No,     ///< not at all (per-rank settings: delay injection, folders)
  OnOff,  ///< whether it is set (a trace path: every rank takes part in the gather)
};

// The fields of Options: environment variable (nullptr: none), the member's
// name and the member, and whether it must agree. from_env(), fingerprint()
// and agreed_fields() walk this list.
template <class O, class Visit>
void each_field(O& o, Visit&& v) {
  auto& p = o.params;
  v("LB4MPI_SCHEDULING", "technique", o.technique, Agree::Yes);
  v("LB4MPI_MODE", "mode", o.mode, Agree::Yes);
  v("LB4MPI_NODE_SCHEDULING", "node_technique", o.node_technique, Agree::Yes);
  v("LB4MPI_GLOBAL_MODE", "global_mode", o.global_mode, Agree::Yes);
  v("LB4MPI_RANKS_PER_NODE", "ranks_per_node", o.ranks_per_node, Agree::Yes);
  v("LB4MPI_AUTO_POLICY", "auto_policy", o.auto_policy, Agree::Yes);
  v("LB4MPI_AUTO_CANDIDATES", "auto_candidates", o.auto_candidates, Agree::Yes);
  v(nullptr, "coordinator", o.coordinator, Agree::Yes);
  v("LB4MPI_BREAK_AFTER", "break_after", o.break_after, Agree::Yes);
  v("LB4MPI_REQUEST_WHEN", "request_when", o.request_when, Agree::Yes);
  v("LB4MPI_CHUNKS_PER_REPLY", "chunks_per_reply", o.chunks_per_reply, Agree::Yes);
  v("LB4MPI_MIN_CHUNK", "min_chunk", p.min_chunk, Agree::Yes);
  v("LB4MPI_MAX_CHUNK", "max_chunk", p.max_chunk, Agree::Yes);
  v("LB4MPI_H", "h", p.h, Agree::Yes);
  v("LB4MPI_SIGMA", "sigma", p.sigma, Agree::Yes);
  v("LB4MPI_MU", "mu", p.mu, Agree::Yes);
  v("LB4MPI_ALPHA", "alpha", p.alpha, Agree::Yes);
  v("LB4MPI_FISS_B", "fiss_batches", p.fiss_batches, Agree::Yes);
  v("LB4MPI_VISS_X", "viss_x", p.viss_x, Agree::Yes);
  v("LB4MPI_PLS_SWR", "pls_swr", p.pls_swr, Agree::Yes);
  v("LB4MPI_RND_BOUNDS", "rnd_bounds", p.rnd_bounds, Agree::Yes);
  v("LB4MPI_SEED", "seed", p.seed, Agree::Yes);
  v("LB4MPI_WEIGHTS", "weights", p.weights, Agree::Yes);
  v("LB4MPI_INJECT_DELAY_US", "inject_delay_us", o.inject_delay_us, Agree::No);
  v("LB4MPI_DELAY_RANKS", "delay_ranks", o.delay_ranks, Agree::No);
  v("LB4MPI_TRACE", "trace", o.trace, Agree::OnOff);
  v("LB4MPI_ITERATIONS_INFO", "iterations_info", o.iterations_info, Agree::Yes);
  v("LB4MPI_DIR_ID", "iterations_dir", o.iterations_dir, Agree::No);
  v("LB4MPI_IDLE_PROBING", "idle_probing", o.idle_probing, Agree::No);
  v("LB4MPI_ROBUST", "robust", o.robust, Agree::Yes);
  v("LB4MPI_ROBUST_TIMEOUT", "robust_timeout", o.robust_timeout, Agree::Yes);
  v("LB4MPI_FAIL_RANKS", "fail_ranks", o.fail_ranks, Agree::No);
  v("LB4MPI_FAIL_AFTER", "fail_after", o.fail_after, Agree::No);
  v("LB4MPI_FAIL_HOW", "fail_how", o.fail_how, Agree::No);
  v("LB4MPI_SLOW_RANKS", "slow_ranks", o.slow_ranks, Agree::No);
  v("LB4MPI_SLOW_FACTOR", "slow_factor", o.slow_factor, Agree::No);
  v("LB4MPI_SLOW_FROM", "slow_from", o.slow_from, Agree::No);
  v("LB4MPI_WAIT", "wait", o.wait, Agree::No);
}

// ---- parsing one variable, by the type of its field

long long parse_integer(const char* var, const char* text) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0') {
    throw Error(std::string(var) + "='" + text + "' is not an integer");
  }
  return v;
}

double parse_real(const char* var, const char* text) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (errno != 0 || end == text || *end != '\0' || !std::isfinite(v)) {
    throw Error(std::string(var) + "='" + text + "' is not a finite number");
  }
  return v;
}

template <class T, class F>
std::vector<T> parse_list(const char* var, const char* text, F parse_one) {
  std::vector<T> out;
  std::string s(text);
  std::size_t pos = 0;
  while (pos <= s.size()) {
    const std::size_t comma = s.find(',', pos);
    const std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (item.empty()) throw Error(std::string(var) + "='" + text + "' has an empty element");
    const auto x = parse_one(var, item.c_str());
    if constexpr (std::is_same_v<T, int>) {
      if (x < INT_MIN || x > INT_MAX) throw Error(std::string(var) + "='" + text + "': " + item + " is out of range");
    }
    out.push_back(static_cast<T>(x));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

void parse(const char* var, const char* v, Technique& out) {
  try {
    out = parse_technique(v);
  } catch (const Error& e) {
    throw Error(std::string(var) + ": " + e.what());
  }
}
void parse(const char* var, const char* v, Mode& out) {
  try {
    out = parse_mode(v);
  } catch (const Error& e) {
    throw Error(std::string(var) + ": " + e.what());
  }
}
void parse(const char* var, const char* v, Wait& out) {
  try {
    out = parse_wait(v);
  } catch (const Error& e) {
    throw Error(std::string(var) + ": " + e.what());
  }
}
void parse(const char* var, const char* v, RndBounds& out) {
  try {
    out = parse_rnd_bounds(v);
  } catch (const Error&) {
    throw Error(std::string(var) + "='" + v + "'; valid values: unit, paper004");
  }
}
void parse(const char* var, const char* v, bool& out) {
  const std::string s = lower(v);
  if (s == "1" || s == "true" || s == "yes" || s == "on") {
    out = true;
  } else if (s == "0" || s == "false" || s == "no" || s == "off") {
    out = false;
  } else {
    throw Error(std::string(var) + "='" + v + "'; valid values: 0, 1 (also false/true, no/yes, off/on)");
  }
}
void parse(const char* var, const char* v, int& out) {
  const long long x = parse_integer(var, v);
  if (x < INT_MIN || x > INT_MAX) {
    throw Error(std::string(var) + "='" + v + "' is out of range (an int: " + std::to_string(INT_MIN) + ".." +
                std::to_string(INT_MAX) + ")");
  }
  out = static_cast<int>(x);
}
void parse(const char* var, const char* v, Index& out) { out = parse_integer(var, v); }
void parse(const char* var, const char* v, std::uint64_t& out) {
  out = static_cast<std::uint64_t>(parse_integer(var, v));
}
void parse(const char* var, const char* v, double& out) { out = parse_real(var, v); }
void parse(const char* /*var*/, const char* v, std::string& out) { out = v; }
void parse(const char* var, const char* v, std::vector<double>& out) { out = parse_list<double>(var, v, parse_real); }
void parse(const char* var, const char* v, std::vector<int>& out) { out = parse_list<int>(var, v, parse_integer); }
void parse(const char* var, const char* v, std::vector<Technique>& out) {
  out = parse_list<Technique>(var, v, [](const char* name, const char* item) {
    Technique t{};
    parse(name, item, t);
    return t;
  });
}
void parse(const char* var, const char* v, Options::FailAfter& out) { out = parse_fail_after(v, var); }

using detail::text;

// ---- a field's part of the fingerprint

template <class T>
void hash(Fingerprint& h, const T& v) {
  h.add(v);
}
void hash(Fingerprint& h, const std::vector<double>& v) {
  h.add(v.size());
  for (double x : v) h.add(x);
}
void hash(Fingerprint& h, const std::vector<int>& v) {
  h.add(v.size());
  for (int x : v) h.add(x);
}
void hash(Fingerprint& h, const std::vector<Technique>& v) {
  h.add(v.size());
  for (Technique x : v) h.add(static_cast<int>(x));
}
void hash(Fingerprint& h, const Options::FailAfter& v) {
  h.add(v.chunks);
  h.add(v.seconds);
  h.add(v.at_end);
  h.add(v.in_report);
}
void hash(Fingerprint& h, const std::string& v) {
  h.add(v.size());
  for (char c : v) h.add(c);
}

}  // namespace

std::string_view name(Mode m) {
  switch (m) {
    case Mode::Centralized: return "centralized";
    case Mode::Distributed: return "distributed";
    case Mode::DistributedRMA: return "distributed-rma";
    case Mode::Hierarchical: return "hierarchical";
  }
  return "?";
}

Options::FailAfter parse_fail_after(std::string_view text, std::string_view name) {
  const std::string s(text);
  const std::string var(name);
  Options::FailAfter out;
  if (s == "end") {
    out.at_end = true;
    return out;
  }
  if (s == "report") {
    out.in_report = true;
    return out;
  }
  try {
    if (!s.empty() && s.back() == 's') {
      out.seconds = parse_real(var.c_str(), s.substr(0, s.size() - 1).c_str());
    } else {
      parse(var.c_str(), s.c_str(), out.chunks);
    }
  } catch (const Error&) {
    throw Error(var + "='" + s + "'; valid: a number of chunks (3), of seconds (0.25s), end or report");
  }
  return out;
}

Mode parse_mode(std::string_view text) {
  const std::string s = lower(text);
  if (s == "centralized" || s == "cca") return Mode::Centralized;
  if (s == "distributed" || s == "dca") return Mode::Distributed;
  if (s == "distributed-rma" || s == "dca-rma") return Mode::DistributedRMA;
  if (s == "hierarchical" || s == "hier") return Mode::Hierarchical;
  throw Error("unknown execution mode '" + std::string(text) +
              "'; valid modes: centralized (cca), distributed (dca), distributed-rma (dca-rma), hierarchical (hier)");
}

std::string_view name(Wait w) {
  switch (w) {
    case Wait::Auto: return "auto";
    case Wait::Spin: return "spin";
    case Wait::Yield: return "yield";
    case Wait::Block: return "block";
  }
  return "?";
}

Wait parse_wait(std::string_view text) {
  const std::string s = lower(text);
  if (s == "auto") return Wait::Auto;
  if (s == "spin") return Wait::Spin;
  if (s == "yield") return Wait::Yield;
  if (s == "block") return Wait::Block;
  throw Error("unknown wait policy '" + std::string(text) + "'; valid: auto, spin, yield, block");
}

Options Options::from_env() { return from_env(Options{}); }

Options Options::from_env(Options o) { return detail::from_env_ignoring(std::move(o), {}); }

Options detail::from_env_ignoring(Options o, std::string_view ignored) {
  each_field(o, [&o, ignored](const char* var, const char* member, auto& field, Agree) {
    if (var == nullptr || var == ignored) return;
    const char* v = std::getenv(var);
    if (v == nullptr || *v == '\0') return;
    parse(var, v, field);
    o.origin[member] = std::string(var) + "=" + v;
  });
  return o;
}

std::uint64_t Options::fingerprint() const {
  Fingerprint h;
  each_field(*this, [&h](const char*, const char*, const auto& field, Agree agree) {
    if (agree == Agree::Yes) hash(h, field);
    if constexpr (requires { field.empty(); }) {
      if (agree == Agree::OnOff) h.add(field.empty());
    }
  });
  return h.value();
}

std::vector<std::pair<std::string, std::string>> Options::agreed_fields() const {
  std::vector<std::pair<std::string, std::string>> out;
  each_field(*this, [&out](const char*, const char* member, const auto& field, Agree agree) {
    if (agree == Agree::Yes) out.emplace_back(member, text(field));
    if constexpr (requires { field.empty(); }) {
      if (agree == Agree::OnOff) out.emplace_back(member, field.empty() ? "off" : "on");
    }
  });
  return out;
}

std::vector<std::string> Options::known_variables() {
  std::vector<std::string> out;
  Options o;
  each_field(o, [&out](const char* var, const char*, const auto&, Agree) {
    if (var != nullptr) out.emplace_back(var);
  });
  out.emplace_back("LB4MPI_STRICT");
  // Read by the owned loops (lb4mpi::StealOptions::from_env, src/stealing).
  for (const std::string& v : st::variables()) {
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);  // LB4MPI_RANKS_PER_NODE: both
  }
  // Read by the latency-perturbation library (src/perturb, LD_PRELOAD).
  out.emplace_back("LB4MPI_PERTURB_RANKS");
  out.emplace_back("LB4MPI_PERTURB_LATENCY_US");
  out.emplace_back("LB4MPI_PERTURB_VERBOSE");
  // Where failure tests collect each survivor's verdict (apps/common/verdict.hpp).
  out.emplace_back("LB4MPI_VERDICT_DIR");
  return out;
}

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::vector<std::string> Options::unknown_variables() {
  // Every loop's start looks (the environment may change between loops):
  // the list is made once, and a known variable costs no allocation. An
  // environment whose entries are the same strings as at the last look
  // (setenv and putenv replace an entry's pointer) has the same answer.
  static const std::vector<std::string> known = known_variables();
  thread_local std::uint64_t last_key = 0;  // per thread: no lock, no race
  thread_local std::vector<std::string> last_answer;
  std::uint64_t key = reinterpret_cast<std::uintptr_t>(environ);  // one multiply per entry, not FNV's per byte
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    key = (key ^ reinterpret_cast<std::uintptr_t>(*e)) * 0x9e3779b97f4a7c15ULL;
  }
  if (key == last_key && key != 0) return last_answer;
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if ((*e)[0] != 'L' || std::strncmp(*e, "LB4MPI_", 7) != 0) continue;  // most entries fail at once
    const std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('='));
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    const std::string var(name);
    std::string msg = var + " is not a known variable";
    const std::string* best = nullptr;
    std::size_t best_distance = 4;  // a suggestion only for a near miss
    for (const std::string& k : known) {
      const std::size_t d = edit_distance(var, k);
      if (d < best_distance) {
        best_distance = d;
        best = &k;
      }
    }
    msg += best != nullptr ? " (did you mean " + *best + "?)" : " (the known ones: docs/OPTIONS.md)";
    out.push_back(msg);
  }
  std::sort(out.begin(), out.end());
  last_key = key;
  last_answer = out;
  return out;
}

}  // namespace lb4mpi
