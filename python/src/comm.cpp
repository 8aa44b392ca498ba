// The MPI communicator of an mpi4py.MPI.Comm, through mpi4py's C API
// (mpi4py.h: PyMPIComm_Get). Its function pointers are static to the
// translation unit that includes the header, so this is the only one.
#include <mpi4py/mpi4py.h>

#include "binding.hpp"

namespace lb4mpi::python {

void import_mpi4py() {
  if (::import_mpi4py() < 0) throw py::error_already_set();
}

bool mpi_finalized() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  return finalized != 0;
}

MPI_Comm communicator(py::handle comm) {
  MPI_Comm* handle = PyMPIComm_Get(comm.ptr());  // TypeError for anything but an mpi4py.MPI.Comm
  if (handle == nullptr) throw py::error_already_set();
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized == 0) {
    throw Error("lb4mpi: MPI is not initialized (mpi4py.rc.initialize is False: call mpi4py.MPI.Init() first)");
  }
  if (mpi_finalized()) throw Error("lb4mpi: MPI has been finalized");
  return *handle;
}

}  // namespace lb4mpi::python
