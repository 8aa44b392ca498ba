// The C API's error hook (error_hook.hpp): where it is kept.
#include "error_hook.hpp"

namespace lb4mpi::capi {
namespace {

ErrorHook g_hook = nullptr;

}  // namespace

void set_error_hook(ErrorHook hook) { g_hook = hook; }

ErrorHook error_hook() { return g_hook; }

}  // namespace lb4mpi::capi
