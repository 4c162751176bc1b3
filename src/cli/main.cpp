#include "cli/main.h"
#ifdef HETPS_WITH_MPI
#include "mpi/mpi_engine.h"
#include "mpi/session.h"
#endif

int main(int argc, char** argv) {
#ifdef HETPS_WITH_MPI
  hetps::mpi::register_mpi_engine();
#endif
  const int exit_code = hetps::cli::main_entry(argc, argv);
#ifdef HETPS_WITH_MPI
  // Ends this rank's part in an mpi run; a failing rank ends the whole job.
  hetps::mpi::finish(exit_code);
#endif
  return exit_code;
}
