/* An unknown technique id: every rank must print the error and exit with
 * status 2 (checked by the test driver), nobody hangs. */
#include <lb4mpi/lb4mpi.h>
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int numProcs = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &numProcs);
  infoDLS iInfo;
  DLS_Parameters_Setup(MPI_COMM_WORLD, &iInfo, numProcs, -1, -1, 1, 0.01, 0.06, 0, 1.0, 1.0);
  DLS_StartLoop(&iInfo, 0, 99, 42);
  DLS_Finalize(&iInfo);
  MPI_Finalize();
  return 0;
}
