// Fuzz target (a): option and environment parsing. See check_options.hpp.
//
// Input: a sequence of operations, each a selector byte and its arguments
// (ByteReader): parse a technique name, parse a mode, set or unset one of the
// documented variables to a text, set an LB4MPI_* variable lb4mpi does not
// know, read the environment (from_env, validate, fingerprint). At the end
// the environment is read once more, unknown_variables() is checked, and
// every variable set is removed again.
#include "check_options.hpp"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "byte_reader.hpp"
#include "check.hpp"
#include "environment.hpp"
#include "lb4mpi/options.hpp"

extern char** environ;

namespace lb4mpi::fuzz {
namespace {

// ---- the documented variables (docs/OPTIONS.md) --------------------------

enum class Kind : std::uint8_t { Technique, Mode, Int, Count, Seed, Real, Reals, Ints, Text, Bool, Bounds };

struct Var {
  const char* name;
  Kind kind;
};

constexpr Var kVars[] = {
    {"LB4MPI_SCHEDULING", Kind::Technique},  {"LB4MPI_MODE", Kind::Mode},
    {"LB4MPI_MIN_CHUNK", Kind::Count},       {"LB4MPI_MAX_CHUNK", Kind::Count},
    {"LB4MPI_H", Kind::Real},                {"LB4MPI_SIGMA", Kind::Real},
    {"LB4MPI_MU", Kind::Real},               {"LB4MPI_ALPHA", Kind::Real},
    {"LB4MPI_FISS_B", Kind::Int},            {"LB4MPI_VISS_X", Kind::Real},
    {"LB4MPI_PLS_SWR", Kind::Real},          {"LB4MPI_RND_BOUNDS", Kind::Bounds},
    {"LB4MPI_SEED", Kind::Seed},             {"LB4MPI_WEIGHTS", Kind::Reals},
    {"LB4MPI_BREAK_AFTER", Kind::Int},       {"LB4MPI_REQUEST_WHEN", Kind::Int},
    {"LB4MPI_CHUNKS_PER_REPLY", Kind::Int},
    {"LB4MPI_INJECT_DELAY_US", Kind::Real},  {"LB4MPI_DELAY_RANKS", Kind::Ints},
    {"LB4MPI_TRACE", Kind::Text},            {"LB4MPI_ITERATIONS_INFO", Kind::Bool},
    {"LB4MPI_DIR_ID", Kind::Text},           {"LB4MPI_IDLE_PROBING", Kind::Bool},
};
constexpr std::size_t kVarCount = sizeof(kVars) / sizeof(kVars[0]);

// The field a variable sets, as a text that is equal exactly when the values are.
std::string exact(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%a", x);
  return buf;
}

template <class T>
std::string join(const std::vector<T>& v) {
  std::string out;
  for (const T& x : v) {
    if constexpr (std::is_same_v<T, double>) {
      out += exact(x);
    } else {
      out += std::to_string(x);
    }
    out += ';';
  }
  return out;
}

std::string field_of(const Options& o, const std::string& var) {
  const TechniqueParams& q = o.params;
  if (var == "LB4MPI_SCHEDULING") return std::string(name(o.technique));
  if (var == "LB4MPI_MODE") return std::string(name(o.mode));
  if (var == "LB4MPI_MIN_CHUNK") return std::to_string(q.min_chunk);
  if (var == "LB4MPI_MAX_CHUNK") return std::to_string(q.max_chunk);
  if (var == "LB4MPI_H") return exact(q.h);
  if (var == "LB4MPI_SIGMA") return exact(q.sigma);
  if (var == "LB4MPI_MU") return exact(q.mu);
  if (var == "LB4MPI_ALPHA") return exact(q.alpha);
  if (var == "LB4MPI_FISS_B") return std::to_string(q.fiss_batches);
  if (var == "LB4MPI_VISS_X") return exact(q.viss_x);
  if (var == "LB4MPI_PLS_SWR") return exact(q.pls_swr);
  if (var == "LB4MPI_RND_BOUNDS") return q.rnd_bounds == RndBounds::Unit ? "unit" : "paper004";
  if (var == "LB4MPI_SEED") return std::to_string(q.seed);
  if (var == "LB4MPI_WEIGHTS") return join(q.weights);
  if (var == "LB4MPI_BREAK_AFTER") return std::to_string(o.break_after);
  if (var == "LB4MPI_REQUEST_WHEN") return std::to_string(o.request_when);
  if (var == "LB4MPI_CHUNKS_PER_REPLY") return std::to_string(o.chunks_per_reply);
  if (var == "LB4MPI_INJECT_DELAY_US") return exact(o.inject_delay_us);
  if (var == "LB4MPI_DELAY_RANKS") return join(o.delay_ranks);
  if (var == "LB4MPI_TRACE") return o.trace;
  if (var == "LB4MPI_ITERATIONS_INFO") return o.iterations_info ? "1" : "0";
  if (var == "LB4MPI_DIR_ID") return o.iterations_dir;
  if (var == "LB4MPI_IDLE_PROBING") return o.idle_probing ? "1" : "0";
  fail("no field for " + var);
}

// ---- reference readings of a value, by kind ------------------------------

std::string lower_dash(const std::string& s) {
  std::string out;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    out.push_back(c == '_' ? '-' : (u >= 'A' && u <= 'Z' ? static_cast<char>(u - 'A' + 'a') : c));
  }
  return out;
}

// "integer": what strtoll reads in base 10, the whole text, in range.
std::optional<long long> reference_integer(const std::string& s) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str() || *end != '\0') return std::nullopt;
  return v;
}

// A real: strtod over the whole text, finite. `doubtful` is set for texts
// strtod reads with ERANGE (denormal results): accepting or refusing both fine.
std::optional<double> reference_real(const std::string& s, bool& doubtful) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || !std::isfinite(v)) return std::nullopt;
  if (errno != 0) doubtful = true;
  return v;
}

std::optional<std::vector<std::string>> items(const std::string& s) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  for (;;) {
    const std::size_t comma = s.find(',', pos);
    out.push_back(s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (out.back().empty()) return std::nullopt;
    if (comma == std::string::npos) return out;
    pos = comma + 1;
  }
}

std::optional<Technique> reference_technique(const std::string& text);

/// OPTIONS.md's modes, read independently of parse_mode: either spelling,
/// case and '_'/'-' free.
std::optional<Mode> reference_mode(const std::string& text) {
  const std::string l = lower_dash(text);
  if (l == "centralized" || l == "cca") return Mode::Centralized;
  if (l == "distributed" || l == "dca") return Mode::Distributed;
  if (l == "distributed-rma" || l == "dca-rma") return Mode::DistributedRMA;
  if (l == "hierarchical" || l == "hier") return Mode::Hierarchical;
  return std::nullopt;
}

/// The documented value of `kind` for the (non-empty) text `s`, as field_of
/// writes it; nullopt when the text is not a valid value. The technique and
/// the mode come from this file's own reading of the docs, never from the
/// parsers under test.
std::optional<std::string> expected(Kind kind, const std::string& s, bool& doubtful) {
  switch (kind) {
    case Kind::Technique: {
      const std::optional<Technique> t = reference_technique(s);
      if (!t) return std::nullopt;
      return std::string(name(*t));
    }
    case Kind::Mode: {
      const std::optional<Mode> m = reference_mode(s);
      if (!m) return std::nullopt;
      return std::string(name(*m));
    }
    case Kind::Count:
    case Kind::Int:
    case Kind::Seed: {
      const std::optional<long long> v = reference_integer(s);
      if (!v) return std::nullopt;
      if (kind == Kind::Int && (*v < INT_MIN || *v > INT_MAX)) return std::nullopt;  // no silent truncation
      if (kind == Kind::Seed) return std::to_string(static_cast<std::uint64_t>(*v));  // a seed is 64 bits
      return std::to_string(*v);
    }
    case Kind::Real: {
      const std::optional<double> v = reference_real(s, doubtful);
      if (!v) return std::nullopt;
      return exact(*v);
    }
    case Kind::Reals:
    case Kind::Ints: {
      const auto parts = items(s);
      if (!parts) return std::nullopt;
      std::string out;
      for (const std::string& part : *parts) {
        const std::optional<std::string> one = expected(kind == Kind::Reals ? Kind::Real : Kind::Int, part, doubtful);
        if (!one) return std::nullopt;
        out += *one + ";";
      }
      return out;
    }
    case Kind::Text:
      return s;
    case Kind::Bool: {
      const std::string l = lower_dash(s);
      if (l == "1" || l == "true" || l == "yes" || l == "on") return std::string("1");
      if (l == "0" || l == "false" || l == "no" || l == "off") return std::string("0");
      return std::nullopt;
    }
    case Kind::Bounds: {
      const std::string l = lower_dash(s);
      if (l == "unit" || l == "paper004") return l;
      return std::nullopt;
    }
  }
  return std::nullopt;
}

// ---- technique names and modes --------------------------------------------

bool blank(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// TECHNIQUES.md, "Names and ids": case-insensitive, '-' = '_', blanks around
// ignored; a decimal id of `000` Table 4.1; wFAC is WF; auto is Technique::Auto.
std::optional<Technique> reference_technique(const std::string& text) {
  std::size_t b = 0;
  std::size_t e = text.size();
  while (b < e && blank(static_cast<unsigned char>(text[b]))) ++b;
  while (e > b && blank(static_cast<unsigned char>(text[e - 1]))) --e;
  std::string key;
  for (std::size_t i = b; i < e; ++i) {
    const auto u = static_cast<unsigned char>(text[i]);
    key.push_back(u == '_' ? '-' : (u >= 'a' && u <= 'z' ? static_cast<char>(u - 'a' + 'A') : static_cast<char>(u)));
  }
  const bool negative = !key.empty() && key[0] == '-';
  const std::string digits = negative ? key.substr(1) : key;
  if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos) {
    long long id = 0;
    for (const char c : digits) {
      id = id * 10 + (c - '0');
      if (id > INT_MAX) return std::nullopt;
    }
    if (negative) id = -id;
    for (const TechniqueInfo& ti : all_techniques()) {
      if (ti.legacy_id >= 0 && ti.legacy_id == id) return ti.technique;
    }
    return std::nullopt;
  }
  if (key == "WFAC") return Technique::WF;
  if (key == "AUTO") return Technique::Auto;  // "or \"auto\" (Technique::Auto)": automatic selection
  for (const TechniqueInfo& ti : all_techniques()) {
    std::string canonical;
    for (const char c : ti.name) canonical.push_back(c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
    if (canonical == key) return ti.technique;
  }
  return std::nullopt;
}

void check_technique(const std::string& text) {
  const std::optional<Technique> want = reference_technique(text);
  try {
    const Technique got = parse_technique(text);
    expect(want.has_value() && *want == got, [&] {
      return "parse_technique('" + text + "') = " + std::string(name(got)) + ", documented: " +
             (want ? std::string(name(*want)) : "an error");
    });
    expect(parse_technique(name(got)) == got, [&] { return "the name of " + std::string(name(got)) + " does not parse back"; });
  } catch (const Error& e) {
    const std::string msg = e.what();
    expect(!want.has_value(), [&] { return "parse_technique('" + text + "') refused a documented name: " + msg; });
    // "An unknown name throws lb4mpi::Error listing every name and every id."
    expect(msg.find("STATIC") != std::string::npos && msg.find("PLS") != std::string::npos,
           [&] { return "parse_technique's error does not list the names: " + msg; });
  }
}

void check_mode(const std::string& text) {
  const std::optional<Mode> want = reference_mode(text);
  try {
    const Mode got = parse_mode(text);
    expect(want.has_value() && *want == got, [&] {
      return "parse_mode('" + text + "') = " + std::string(name(got)) + ", documented: " +
             (want ? std::string(name(*want)) : "an error");
    });
    expect(parse_mode(name(got)) == got, [&] { return "the name of a mode does not parse back"; });
  } catch (const Error& e) {
    expect(!want.has_value(), [&] { return "parse_mode('" + text + "') refused a documented mode: " + e.what(); });
    expect(e.what()[0] != '\0', [] { return std::string("parse_mode: an Error without a message"); });
  }
}

// ---- the environment -------------------------------------------------------

/// The LB4MPI_* variables this input set, with their values.
using Env = std::map<std::string, std::string>;

const Var* documented(const std::string& var) {
  for (const Var& v : kVars) {
    if (var == v.name) return &v;
  }
  return nullptr;
}

bool known(const std::string& var) {
  static const std::vector<std::string> all = Options::known_variables();
  for (const std::string& k : all) {
    if (k == var) return true;
  }
  return false;
}

/// from_env against the documented readings of every variable set.
std::optional<Options> check_from_env(const Env& env) {
  bool any_invalid = false;
  bool doubtful = false;
  std::map<std::string, std::string> want;
  for (const auto& [var, value] : env) {
    const Var* v = documented(var);
    if (v == nullptr || value.empty()) continue;  // an empty variable is not set (OPTIONS.md)
    const std::optional<std::string> x = expected(v->kind, value, doubtful);
    if (x) {
      want[var] = *x;
    } else {
      any_invalid = true;
    }
  }
  try {
    Options o = Options::from_env();
    expect(!any_invalid, [&] {
      std::string bad;
      for (const auto& [var, value] : env) {
        bool d = false;
        const Var* v = documented(var);
        if (v != nullptr && !value.empty() && !expected(v->kind, value, d)) bad += " " + var + "='" + value + "'";
      }
      return "from_env accepted invalid values:" + bad;
    });
    for (const auto& entry : want) {  // (no structured binding: clang 14 cannot capture one)
      const std::string& var = entry.first;
      const std::string got = field_of(o, var);
      expect(got == entry.second, [&] {
        return "from_env: " + var + "='" + env.at(var) + "' gave " + got + ", documented " + entry.second;
      });
    }
    return o;
  } catch (const Error& e) {
    const std::string msg = e.what();
    // Any value may be refused (a range check), but the message must say which variable.
    bool named = false;
    for (const auto& [var, value] : env) named = named || (!value.empty() && msg.find(var) != std::string::npos);
    expect(named, [&] { return "from_env's error names no variable that is set: " + msg; });
    bool others = false;  // variables lb4mpi reads that this target does not model
    for (const auto& [var, value] : env) others = others || (!value.empty() && documented(var) == nullptr && known(var));
    expect(any_invalid || doubtful || others,
           [&] { return "from_env refused a valid environment: " + msg; });
    return std::nullopt;
  }
}

void check_validate(const Options& o, int ranks) {
  try {
    o.validate(ranks);
    expect(o.coordinator >= 0 && o.coordinator < ranks, [&] { return std::string("validate accepted a coordinator outside the ranks"); });
    expect(o.inject_delay_us >= 0.0, [&] { return std::string("validate accepted a negative delay"); });
    expect(o.chunks_per_reply == -1 || o.chunks_per_reply >= 1,
           [&] { return "validate accepted chunks_per_reply " + std::to_string(o.chunks_per_reply); });
    for (const int r : o.delay_ranks) {
      expect(r >= 0 && r < ranks, [&] { return "validate accepted delay rank " + std::to_string(r) + " of " + std::to_string(ranks); });
    }
  } catch (const Error& e) {
    expect(e.what()[0] != '\0', [] { return std::string("validate: an Error without a message"); });
  }
  const Options copy = o;
  expect(copy.fingerprint() == o.fingerprint(), [] { return std::string("fingerprint of a copy differs"); });
  expect(!o.agreed_fields().empty(), [] { return std::string("agreed_fields() is empty"); });
}

void check_unknown(const Env& env) {
  const std::vector<std::string> messages = Options::unknown_variables();
  for (const auto& entry : env) {
    const std::string& var = entry.first;
    std::size_t mentions = 0;
    for (const std::string& m : messages) mentions += m.rfind(var + " is not a known variable", 0) == 0 ? 1 : 0;
    const bool unknown = !known(var);
    expect(mentions == (unknown ? 1U : 0U), [&] {
      return var + (unknown ? " is unknown" : " is known") + " but unknown_variables() names it " +
             std::to_string(mentions) + " times";
    });
  }
}

/// No LB4MPI_* variable from outside: the input alone decides the environment.
void clear_outside_variables() {
  std::vector<std::string> names;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry(*e);
    if (entry.rfind("LB4MPI_", 0) == 0) names.push_back(entry.substr(0, entry.find('=')));
  }
  for (const std::string& n : names) unsetenv(n.c_str());
}

std::string unknown_name(ByteReader& in) {
  static constexpr char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
  std::string name = "LB4MPI_";
  for (int k = in.take_in(1, 12); k > 0; --k) name += kChars[in.take<std::uint8_t>() % (sizeof kChars - 1)];
  return name;
}

}  // namespace

void check_options(const std::uint8_t* data, std::size_t size) {
  static const bool cleared = (clear_outside_variables(), true);
  (void)cleared;
  static Environment environment;
  ByteReader in(data, size);
  Env env;
  const auto set = [&](const std::string& var, const std::string& value) {
    environment.set(var, value);
    env[var] = value.substr(0, value.find('\0'));  // what the variable holds
  };
  while (!in.empty()) {
    switch (in.take<std::uint8_t>() % 7) {
      case 0:
        check_technique(in.take_string(48));
        break;
      case 1:
        check_mode(in.take_string(48));
        break;
      case 2:
      case 3: {
        const Var& v = kVars[in.take<std::uint8_t>() % kVarCount];
        set(v.name, in.take_string(64));
        break;
      }
      case 4:
        set(unknown_name(in), "1");
        break;
      case 5: {
        const Var& v = kVars[in.take<std::uint8_t>() % kVarCount];
        environment.unset(v.name);
        env.erase(v.name);
        break;
      }
      default:
        if (const std::optional<Options> o = check_from_env(env)) check_validate(*o, in.take_in(-1, 300));
        break;
    }
  }
  if (const std::optional<Options> o = check_from_env(env)) check_validate(*o, 4);
  check_unknown(env);
  environment.clear();
}

}  // namespace lb4mpi::fuzz
