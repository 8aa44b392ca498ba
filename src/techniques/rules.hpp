// Private: what each technique unit (src/techniques/<name>.cpp) states about
// itself, once — its descriptor: facts and ids (TechniqueInfo), the factory
// of its ChunkRule subclass, which the unit keeps to itself, and the checks
// of the parameters it reads. The technique table (all_techniques), the C
// API's ids, make_rule() and TechniqueParams::validate() are derived from
// the descriptors (technique.cpp, make_rule.cpp, params.cpp).
#pragma once
#include <memory>
#include <string>

#include "lb4mpi/techniques/chunk_calculator.hpp"

namespace lb4mpi::detail {

/// Gets a shape and parameters that validate() accepted.
using RuleFactory = std::unique_ptr<ChunkRule> (*)(LoopShape, const TechniqueParams&);
/// Throws InvalidParameter for a parameter of the technique out of range
/// (the general ones — N, P, min and max chunk — are checked before).
using ParamCheck = void (*)(Technique, const TechniqueParams&, int p);

struct Descriptor {
  TechniqueInfo info;
  RuleFactory make = nullptr;
  ParamCheck check = nullptr;  ///< nullptr: no parameter of its own
};

/// The descriptor of a chunk-size technique; throws lb4mpi::Error for Auto.
const Descriptor& descriptor(Technique t);

// One per technique, each defined in the technique's unit.
extern const Descriptor kStaticDescriptor;
extern const Descriptor kSsDescriptor;
extern const Descriptor kFscDescriptor;
extern const Descriptor kMfscDescriptor;
extern const Descriptor kGssDescriptor;
extern const Descriptor kTapDescriptor;
extern const Descriptor kTssDescriptor;
extern const Descriptor kFacDescriptor;
extern const Descriptor kFac2Descriptor;
extern const Descriptor kTfssDescriptor;
extern const Descriptor kFissDescriptor;
extern const Descriptor kVissDescriptor;
extern const Descriptor kWfDescriptor;
extern const Descriptor kAwfDescriptor;
extern const Descriptor kAwfBDescriptor;
extern const Descriptor kAwfCDescriptor;
extern const Descriptor kAwfDDescriptor;
extern const Descriptor kAwfEDescriptor;
extern const Descriptor kAfDescriptor;
extern const Descriptor kRndDescriptor;
extern const Descriptor kPlsDescriptor;

// Helpers of the parameter checks: the message starts with the technique and
// names the parameter, the value and the valid range ("FISS needs
// fiss_batches >= 2, got 1").
std::string show(double v);
[[noreturn]] void fail(Technique t, const char* field, const std::string& what);
/// Fails unless v is finite and > 0 (or >= 0 with zero_ok); `what` is put
/// before the range, e.g. "(scheduling overhead) ".
void check_positive(Technique t, const char* field, double v, bool zero_ok = false, const char* what = "");

}  // namespace lb4mpi::detail
