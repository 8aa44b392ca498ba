// The engines of src/stealing/a2ws: A2WS (`002`) and its baselines —
// leader-workers, random work stealing, token-based stealing. The stealing
// layer's registry includes this header when it exists and calls
// register_engines (stealing/engine.hpp, "how an engine plugs in").
#pragma once
#include "stealing/engine.hpp"

namespace lb4mpi::st::a2ws {

void register_engines(EngineRegistry& r);

}  // namespace lb4mpi::st::a2ws
