// TechniqueParams::validate: every message names the parameter, the value
// and the valid range.
#include <cctype>
#include <cmath>
#include <sstream>
#include <string>

#include "lb4mpi/techniques/params.hpp"
#include "math.hpp"

namespace lb4mpi {

namespace {

std::string show(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// `field` is the member's name, and the message starts with the technique:
// "FISS needs fiss_batches >= 2, got 1".
[[noreturn]] void fail(Technique t, const char* field, const std::string& what) {
  throw InvalidParameter(field, std::string(name(t)) + " needs " + field + " " + what);
}

}  // namespace

std::string_view name(RndBounds b) { return b == RndBounds::Unit ? "unit" : "paper004"; }

RndBounds parse_rnd_bounds(std::string_view text) {
  std::string s(text);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "unit") return RndBounds::Unit;
  if (s == "paper004") return RndBounds::Paper004;
  throw Error("unknown RND bounds '" + std::string(text) + "'; valid values: unit, paper004");
}

void TechniqueParams::validate(Technique t, Index n, int p) const {
  if (t != Technique::Auto) (void)info(t);  // throws for an id outside the enum
  if (n < 0) throw Error("the number of iterations N must be >= 0, got " + std::to_string(n));
  if (n > detail::kMaxIterations) {
    throw Error("the number of iterations N must be <= 2^62 = " +
                std::to_string(detail::kMaxIterations) + ", got " + std::to_string(n));
  }
  if (p < 1) throw Error("the number of ranks P must be >= 1, got " + std::to_string(p));
  if (min_chunk < 1) throw InvalidParameter("min_chunk", "min_chunk must be >= 1, got " + std::to_string(min_chunk));
  if (max_chunk != 0 && max_chunk < min_chunk) {
    throw InvalidParameter("max_chunk", "max_chunk must be 0 (no maximum) or >= min_chunk = " +
                                            std::to_string(min_chunk) + ", got " + std::to_string(max_chunk));
  }
  switch (t) {
    case Technique::FSC:
      if (!(std::isfinite(h) && h > 0.0)) fail(t, "h", "(scheduling overhead) > 0, got " + show(h));
      if (!(std::isfinite(sigma) && sigma > 0.0)) fail(t, "sigma", "> 0, got " + show(sigma));
      break;
    case Technique::TAP:
    case Technique::FAC:
      if (!(std::isfinite(mu) && mu > 0.0)) fail(t, "mu", "> 0, got " + show(mu));
      if (!(std::isfinite(sigma) && sigma >= 0.0)) fail(t, "sigma", ">= 0, got " + show(sigma));
      if (t == Technique::TAP && !(std::isfinite(alpha) && alpha >= 0.0))
        fail(t, "alpha", ">= 0, got " + show(alpha));
      break;
    case Technique::FISS:
      if (fiss_batches < 2) fail(t, "fiss_batches", ">= 2, got " + std::to_string(fiss_batches));
      break;
    case Technique::VISS:
      if (!(std::isfinite(viss_x) && viss_x > 0.0)) fail(t, "viss_x", "> 0, got " + show(viss_x));
      break;
    case Technique::PLS:
      if (!(pls_swr >= 0.0 && pls_swr <= 1.0)) fail(t, "pls_swr", "in [0, 1], got " + show(pls_swr));
      break;
    case Technique::RND:
      if (rnd_bounds != RndBounds::Unit && rnd_bounds != RndBounds::Paper004) {
        fail(t, "rnd_bounds", "Unit or Paper004, got " + std::to_string(static_cast<int>(rnd_bounds)));
      }
      break;
    case Technique::WF:
    case Technique::AWF:
      if (!weights.empty()) {
        if (weights.size() != static_cast<std::size_t>(p)) {
          throw InvalidParameter("weights", std::string(name(t)) + " needs " + std::to_string(p) +
                                                " weights (one per rank), got " + std::to_string(weights.size()));
        }
        for (std::size_t r = 0; r < weights.size(); ++r) {
          if (!(std::isfinite(weights[r]) && weights[r] > 0.0)) {
            throw InvalidParameter("weights", std::string(name(t)) + " needs positive finite weights, got " +
                                                  show(weights[r]) + " for rank " + std::to_string(r));
          }
        }
      }
      break;
    default:
      break;
  }
}

}  // namespace lb4mpi
