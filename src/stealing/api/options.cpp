// StealOptions: from the environment (`000` Table 4.2 and the owned loops'
// own variables), validation with errors that name the variable and the
// valid values, and what every rank must pass alike.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "lb4mpi/options.hpp"
#include "lb4mpi/stealing.hpp"
#include "stealing/engine.hpp"
#include "stealing/variables.hpp"

namespace lb4mpi {
namespace {

const char* env(const char* var) {
  const char* v = std::getenv(var);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

[[noreturn]] void bad(const char* var, const char* value, const std::string& valid) {
  throw Error(std::string(var) + "='" + value + "'; " + valid);
}

double number(const char* var, const char* v, const std::string& valid) {
  errno = 0;
  char* end = nullptr;
  const double x = std::strtod(v, &end);
  if (errno != 0 || end == v || *end != '\0' || !std::isfinite(x)) bad(var, v, valid);
  return x;
}

int integer(const char* var, const char* v, const std::string& valid) {
  const double x = number(var, v, valid);
  if (x != std::floor(x) || std::fabs(x) > 1e9) bad(var, v, valid);
  return static_cast<int>(x);
}

// `parse(v)`, an error naming the variable `var`.
template <class Parse>
auto named(const char* var, const char* v, Parse parse) {
  try {
    return parse(v);
  } catch (const Error& e) {
    throw Error(std::string(var) + ": " + e.what());
  }
}

bool flag(const char* var, const char* v) {
  const std::string s(v);
  if (s == "1" || s == "true" || s == "yes" || s == "on") return true;
  if (s == "0" || s == "false" || s == "no" || s == "off") return false;
  bad(var, v, "valid values: 0, 1 (also false/true, no/yes, off/on)");
}

std::string text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

// The options every rank must pass alike, as text: agreed_fields() lists
// them and fingerprint() hashes them.
std::vector<std::pair<std::string, std::string>> fields(const StealOptions& o) {
  const TechniqueParams& p = o.params;
  std::string speeds, weights;
  for (double s : o.speeds) speeds += (speeds.empty() ? "" : ",") + text(s);
  for (double w : p.weights) weights += (weights.empty() ? "" : ",") + text(w);
  return {
      {"balancer", std::string(name(o.balancer))},
      {"amount", o.amount.is_ratio ? "ratio " + text(o.amount.ratio) : std::string(name(o.amount.technique))},
      {"victim", std::string(name(o.victim))},
      {"chunking", o.chunking ? std::string(name(*o.chunking)) : "pieces"},
      {"min_chunk", std::to_string(p.min_chunk)},
      {"max_chunk", std::to_string(p.max_chunk)},
      {"h", text(p.h)},
      {"sigma", text(p.sigma)},
      {"mu", text(p.mu)},
      {"alpha", text(p.alpha)},
      {"fiss_batches", std::to_string(p.fiss_batches)},
      {"viss_x", text(p.viss_x)},
      {"pls_swr", text(p.pls_swr)},
      {"rnd_bounds", std::to_string(static_cast<int>(p.rnd_bounds))},
      {"params.seed", std::to_string(p.seed)},
      {"weights", weights},
      {"coordinator", std::to_string(o.coordinator)},
      {"ranks_per_node", std::to_string(o.ranks_per_node)},
      {"break_after", std::to_string(o.break_after)},
      {"seed", std::to_string(o.seed)},
      {"speeds", speeds},
      {"radius", std::to_string(o.radius)},
      {"preemptive", o.preemptive ? "1" : "0"},
      {"iterations_info", o.iterations_info ? "1" : "0"},
  };
}

}  // namespace

StealOptions StealOptions::from_env() { return from_env(StealOptions{}); }

StealOptions StealOptions::from_env(StealOptions o) {
  // What it shares with the loops of lb4mpi::Options: LB4MPI_SCHEDULING (the
  // owner's chunks), the techniques' parameters, LB4MPI_BREAK_AFTER, LB4MPI_SEED.
  Options shared;
  shared.params = o.params;
  shared.break_after = o.break_after;
  shared.iterations_info = o.iterations_info;
  shared.iterations_dir = o.iterations_dir;
  shared = Options::from_env(shared);
  o.params = shared.params;
  o.break_after = shared.break_after;
  o.iterations_info = shared.iterations_info;
  o.iterations_dir = shared.iterations_dir;
  for (const auto& [member, from] : shared.origin) o.origin[member] = from;
  if (const char* v = env("LB4MPI_SCHEDULING")) {
    o.chunking = shared.technique;
    o.origin["chunking"] = std::string("LB4MPI_SCHEDULING=") + v;
  }
  if (const char* v = env("LB4MPI_SEED")) o.seed = static_cast<std::uint64_t>(std::strtoull(v, nullptr, 10));

  if (const char* v = env("LB4MPI_BALANCER")) {
    o.balancer = named("LB4MPI_BALANCER", v, [](const char* x) { return parse_balancer(x); });
    o.origin["balancer"] = std::string("LB4MPI_BALANCER=") + v;
  }
  const char* ratio = env("LB4MPI_STEAL_RATIO");
  const char* ws = env("LB4MPI_WS_SCHEDULING");
  std::optional<Technique> ws_technique;
  if (ws != nullptr) ws_technique = named("LB4MPI_WS_SCHEDULING", ws, [](const char* x) { return parse_technique(x); });
  if (ratio != nullptr) {
    // `000`: STATIC (the technique that fixes every share up front) as the
    // steal technique means the fixed ratio.
    if (ws_technique && (*ws_technique == Technique::Auto || !info(*ws_technique).upfront)) {
      throw Error(std::string("LB4MPI_STEAL_RATIO=") + ratio + " and LB4MPI_WS_SCHEDULING=" + ws +
                  " both set the steal amount; set one (LB4MPI_WS_SCHEDULING=STATIC goes with a ratio)");
    }
    o.amount = StealAmount::of_ratio(number("LB4MPI_STEAL_RATIO", ratio, "valid: a percentage in (0, 100]") / 100.0);
    o.origin["amount"] = std::string("LB4MPI_STEAL_RATIO=") + ratio;
  } else if (ws_technique) {
    o.amount = StealAmount::of(*ws_technique);
    o.origin["amount"] = std::string("LB4MPI_WS_SCHEDULING=") + ws;
  }
  const char* victim = env("LB4MPI_VICTIM");
  const bool laws = env("LB4MPI_LAWS") != nullptr && flag("LB4MPI_LAWS", env("LB4MPI_LAWS"));
  const bool nlaws = env("LB4MPI_nLAWS") != nullptr && flag("LB4MPI_nLAWS", env("LB4MPI_nLAWS"));
  if (laws && nlaws) throw Error("LB4MPI_LAWS=1 and LB4MPI_nLAWS=1: choose one victim selection");
  if (victim != nullptr) {
    o.victim = named("LB4MPI_VICTIM", victim, [](const char* x) { return parse_victim(x); });
    if ((laws && o.victim != Victim::Locality) || (nlaws && o.victim != Victim::NaiveLocality)) {
      throw Error(std::string("LB4MPI_VICTIM=") + victim + " contradicts LB4MPI_" + (laws ? "LAWS" : "nLAWS") + "=1");
    }
    o.origin["victim"] = std::string("LB4MPI_VICTIM=") + victim;
  } else if (laws || nlaws) {
    o.victim = laws ? Victim::Locality : Victim::NaiveLocality;
    o.origin["victim"] = laws ? "LB4MPI_LAWS=1" : "LB4MPI_nLAWS=1";
  }
  if (const char* v = env("LB4MPI_RANKS_PER_NODE")) {
    o.ranks_per_node = integer("LB4MPI_RANKS_PER_NODE", v, "valid: 0 (ask MPI) or ranks per emulated node >= 1");
    o.origin["ranks_per_node"] = std::string("LB4MPI_RANKS_PER_NODE=") + v;
  }
  if (const char* v = env("LB4MPI_SPEEDS")) {
    o.speeds.clear();
    const std::string s(v);
    for (std::size_t pos = 0; pos <= s.size();) {
      const std::size_t comma = s.find(',', pos);
      const std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      o.speeds.push_back(number("LB4MPI_SPEEDS", item.c_str(), "valid: positive speed factors, one per rank, comma-separated"));
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    o.origin["speeds"] = std::string("LB4MPI_SPEEDS=") + v;
  }
  if (const char* v = env("LB4MPI_A2WS_RADIUS")) {
    o.radius = integer("LB4MPI_A2WS_RADIUS", v, "valid: a ring radius >= 1");
    o.origin["radius"] = std::string("LB4MPI_A2WS_RADIUS=") + v;
  }
  if (const char* v = env("LB4MPI_WAIT")) o.wait = named("LB4MPI_WAIT", v, [](const char* x) { return parse_wait(x); });
  if (const char* v = env("LB4MPI_A2WS_PREEMPTIVE")) {
    o.preemptive = flag("LB4MPI_A2WS_PREEMPTIVE", v);
    o.origin["preemptive"] = std::string("LB4MPI_A2WS_PREEMPTIVE=") + v;
  }
  return o;
}

void StealOptions::validate(int ranks) const {
  const auto from = [this](const char* member) {
    const auto it = origin.find(member);
    return it != origin.end() ? " (from " + it->second + ")" : std::string();
  };
  if (st::EngineRegistry::instance().find(balancer) == nullptr) {
    std::string built;
    for (Balancer b : built_balancers()) built += (built.empty() ? "" : ", ") + std::string(name(b));
    throw Error("balancer '" + std::string(name(balancer)) + "' is not built in this build (built: " + built + ")" +
                from("balancer"));
  }
  if (coordinator < 0 || coordinator >= ranks) {
    throw Error("coordinator rank " + std::to_string(coordinator) + " is outside the communicator (valid: 0.." +
                std::to_string(ranks - 1) + ")");
  }
  if (const std::string e = amount.check(); !e.empty()) throw Error(e + from("amount"));
  if (chunking) {
    if (*chunking == Technique::Auto || info(*chunking).adaptive) {
      throw Error("the owner's chunks (LB4MPI_SCHEDULING) need a non-adaptive technique, got " +
                  std::string(name(*chunking)) + from("chunking"));
    }
  }
  try {
    if (!amount.is_ratio) params.validate(amount.technique, 0, ranks);
    if (chunking) params.validate(*chunking, 0, ranks);
  } catch (const InvalidParameter& e) {
    throw Error(e.what() + from(e.field().c_str()));
  }
  if (ranks_per_node < 0) {
    throw Error("ranks_per_node must be >= 0 (0: ask MPI), got " + std::to_string(ranks_per_node) + from("ranks_per_node"));
  }
  if (!speeds.empty()) {
    if (speeds.size() != static_cast<std::size_t>(ranks)) {
      throw Error("speeds needs one factor per rank (" + std::to_string(ranks) + "), got " +
                  std::to_string(speeds.size()) + from("speeds"));
    }
    for (double s : speeds) {
      if (!(std::isfinite(s) && s > 0.0)) throw Error("speeds must be positive, got " + text(s) + from("speeds"));
    }
  }
  if (radius < 1) throw Error("radius must be >= 1, got " + std::to_string(radius) + from("radius"));
}

std::uint64_t StealOptions::fingerprint() const {
  Fingerprint h;
  for (const auto& [field, value] : fields(*this)) h.add(std::string_view(field)).add(std::string_view(value));
  return h.value();
}

std::vector<std::pair<std::string, std::string>> StealOptions::agreed_fields() const { return fields(*this); }

std::vector<std::string> StealOptions::known_variables() {
  std::vector<std::string> out = st::variables();
  // Shared with lb4mpi::Options.
  for (const char* v : {"LB4MPI_SCHEDULING", "LB4MPI_MIN_CHUNK", "LB4MPI_MAX_CHUNK", "LB4MPI_BREAK_AFTER", "LB4MPI_SEED",
                        "LB4MPI_ITERATIONS_INFO", "LB4MPI_DIR_ID"}) {
    out.emplace_back(v);
  }
  return out;
}

std::vector<Balancer> StealOptions::built_balancers() { return st::EngineRegistry::instance().built(); }

}  // namespace lb4mpi
