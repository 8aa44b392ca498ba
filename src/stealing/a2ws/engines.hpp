// The factories of the engines of src/stealing/a2ws (one file each).
#pragma once
#include <memory>

#include "stealing/engine.hpp"

namespace lb4mpi::a2ws {

std::unique_ptr<st::Engine> make_a2ws(const st::Config& config);
std::unique_ptr<st::Engine> make_leader_workers(const st::Config& config);
std::unique_ptr<st::Engine> make_random_stealing(const st::Config& config);
std::unique_ptr<st::Engine> make_token_stealing(const st::Config& config);

}  // namespace lb4mpi::a2ws
