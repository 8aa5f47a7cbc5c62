#pragma once
// The Communicator over MPI_COMM_WORLD, and the process's MPI lifetime. MPI is initialized only
// when a launcher started the process (mpirun, srun, mpiexec): a plain `bayes-vi fit` neither pays
// for MPI start-up nor depends on a working MPI installation.
#include <memory>

#include "inference/reduce/communicator.hpp"

namespace bvi::reduce {

// True when the environment says this process is one of several started by an MPI launcher
// (Open MPI's OMPI_COMM_WORLD_SIZE, PMI(x) as set by srun and MPICH's mpiexec).
bool launched_by_mpi();
// This process's rank as the launcher announced it, before MPI is initialized (0 if none): lets
// only rank 0 report a command-line error.
int launcher_rank();

class MpiRuntime {
 public:
  // Initializes MPI (thread level FUNNELED: only the main thread calls MPI) when launched by an
  // MPI launcher; otherwise the communicator is serial.
  MpiRuntime(int* argc, char*** argv);
  ~MpiRuntime();  // MPI_Finalize when initialized
  MpiRuntime(const MpiRuntime&) = delete;
  MpiRuntime& operator=(const MpiRuntime&) = delete;

  Communicator& comm() { return *comm_; }
  bool using_mpi() const { return initialized_; }

 private:
  bool initialized_ = false;
  std::unique_ptr<Communicator> comm_;
};

}  // namespace bvi::reduce
