// Options: execution-model names and the LB4MPI_* environment variables.
#include "lb4mpi/options.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace lb4mpi {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return (v != nullptr && *v != '\0') ? v : nullptr;
}

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
    out.push_back(static_cast<T>(parse_one(var, item.c_str())));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

bool parse_switch(const char* var, const char* v) {
  const std::string s = lower(v);
  if (s == "1" || s == "true" || s == "yes" || s == "on") return true;
  if (s == "0" || s == "false" || s == "no" || s == "off") return false;
  throw Error(std::string(var) + "='" + v + "'; valid values: 0, 1 (also false/true, no/yes, off/on)");
}

}  // namespace

std::string_view name(Mode m) {
  switch (m) {
    case Mode::Centralized: return "centralized";
    case Mode::Distributed: return "distributed";
    case Mode::DistributedRMA: return "distributed-rma";
  }
  return "?";
}

Mode parse_mode(std::string_view text) {
  const std::string s = lower(text);
  if (s == "centralized" || s == "cca") return Mode::Centralized;
  if (s == "distributed" || s == "dca") return Mode::Distributed;
  if (s == "distributed-rma" || s == "dca-rma") return Mode::DistributedRMA;
  throw Error("unknown execution mode '" + std::string(text) +
              "'; valid modes: centralized (cca), distributed (dca), distributed-rma (dca-rma)");
}

Options Options::from_env() { return from_env(Options{}); }

Options Options::from_env(Options o) {
  if (const char* v = env("LB4MPI_SCHEDULING")) {
    try {
      o.technique = parse_technique(v);
    } catch (const Error& e) {
      throw Error(std::string("LB4MPI_SCHEDULING: ") + e.what());
    }
  }
  if (const char* v = env("LB4MPI_MODE")) {
    try {
      o.mode = parse_mode(v);
    } catch (const Error& e) {
      throw Error(std::string("LB4MPI_MODE: ") + e.what());
    }
  }
  auto& p = o.params;
  if (const char* v = env("LB4MPI_MIN_CHUNK")) p.min_chunk = parse_integer("LB4MPI_MIN_CHUNK", v);
  if (const char* v = env("LB4MPI_MAX_CHUNK")) p.max_chunk = parse_integer("LB4MPI_MAX_CHUNK", v);
  if (const char* v = env("LB4MPI_BREAK_AFTER"))
    o.break_after = static_cast<int>(parse_integer("LB4MPI_BREAK_AFTER", v));
  if (const char* v = env("LB4MPI_REQUEST_WHEN"))
    o.request_when = static_cast<int>(parse_integer("LB4MPI_REQUEST_WHEN", v));
  if (const char* v = env("LB4MPI_H")) p.h = parse_real("LB4MPI_H", v);
  if (const char* v = env("LB4MPI_SIGMA")) p.sigma = parse_real("LB4MPI_SIGMA", v);
  if (const char* v = env("LB4MPI_MU")) p.mu = parse_real("LB4MPI_MU", v);
  if (const char* v = env("LB4MPI_ALPHA")) p.alpha = parse_real("LB4MPI_ALPHA", v);
  if (const char* v = env("LB4MPI_FISS_B"))
    p.fiss_batches = static_cast<int>(parse_integer("LB4MPI_FISS_B", v));
  if (const char* v = env("LB4MPI_VISS_X")) p.viss_x = parse_real("LB4MPI_VISS_X", v);
  if (const char* v = env("LB4MPI_PLS_SWR")) p.pls_swr = parse_real("LB4MPI_PLS_SWR", v);
  if (const char* v = env("LB4MPI_RND_BOUNDS")) {
    const std::string s = lower(v);
    if (s == "unit") {
      p.rnd_bounds = RndBounds::Unit;
    } else if (s == "paper004") {
      p.rnd_bounds = RndBounds::Paper004;
    } else {
      throw Error(std::string("LB4MPI_RND_BOUNDS='") + v + "'; valid values: unit, paper004");
    }
  }
  if (const char* v = env("LB4MPI_SEED"))
    p.seed = static_cast<std::uint64_t>(parse_integer("LB4MPI_SEED", v));
  if (const char* v = env("LB4MPI_WEIGHTS")) p.weights = parse_list<double>("LB4MPI_WEIGHTS", v, parse_real);
  if (const char* v = env("LB4MPI_INJECT_DELAY_US"))
    o.inject_delay_us = parse_real("LB4MPI_INJECT_DELAY_US", v);
  if (const char* v = env("LB4MPI_DELAY_RANKS"))
    o.delay_ranks = parse_list<int>("LB4MPI_DELAY_RANKS", v, parse_integer);
  if (const char* v = env("LB4MPI_TRACE")) o.trace = v;
  if (const char* v = env("LB4MPI_ITERATIONS_INFO")) o.iterations_info = parse_switch("LB4MPI_ITERATIONS_INFO", v);
  if (const char* v = env("LB4MPI_IDLE_PROBING")) o.idle_probing = parse_switch("LB4MPI_IDLE_PROBING", v);
  if (const char* v = env("LB4MPI_DIR_ID")) o.iterations_dir = v;
  return o;
}

}  // namespace lb4mpi
