#include "inference/reduce/mpi_communicator.hpp"

#include <mpi.h>

#include <climits>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace bvi::reduce {

namespace {

long env_long(const char* name, long fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  return end && *end == '\0' ? x : fallback;
}

int to_int(long n) {
  if (n > INT_MAX) throw std::overflow_error("MPI message larger than INT_MAX elements");
  return static_cast<int>(n);
}

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void allgatherv(const double* send, const std::vector<long>& counts, double* recv) override {
    counts_.resize(counts.size());
    displs_.resize(counts.size());
    long offset = 0;
    for (size_t r = 0; r < counts.size(); ++r) {
      counts_[r] = to_int(counts[r]);
      displs_[r] = to_int(offset);
      offset += counts[r];
    }
    MPI_Allgatherv(send, counts_[rank_], MPI_DOUBLE, recv, counts_.data(), displs_.data(), MPI_DOUBLE,
                   MPI_COMM_WORLD);
  }
  void allreduce_max(long* values, int n) override {
    MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  }
  void allreduce_max(double* values, int n) override {
    MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  void allreduce_sum(long* values, int n) override {
    MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  }
  void broadcast(double* values, long n, int root) override {
    MPI_Bcast(values, to_int(n), MPI_DOUBLE, root, MPI_COMM_WORLD);
  }
  void broadcast(std::string& text, int root) override {
    long n = static_cast<long>(text.size());
    MPI_Bcast(&n, 1, MPI_LONG, root, MPI_COMM_WORLD);
    text.resize(static_cast<size_t>(n));
    if (n > 0) MPI_Bcast(text.data(), to_int(n), MPI_CHAR, root, MPI_COMM_WORLD);
  }
  [[noreturn]] void abort(int code) override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
  }

 private:
  int rank_ = 0, size_ = 1;
  std::vector<int> counts_, displs_;
};

}  // namespace

bool launched_by_mpi() {
  return env_long("OMPI_COMM_WORLD_SIZE", 0) > 1 || env_long("PMI_SIZE", 0) > 1 ||
         env_long("PMIX_SIZE", 0) > 1 || (std::getenv("PMIX_RANK") && env_long("SLURM_NTASKS", 0) > 1);
}

int launcher_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    const long r = env_long(name, -1);
    if (r >= 0) return static_cast<int>(r);
  }
  return 0;
}

MpiRuntime::MpiRuntime(int* argc, char*** argv) {
  if (launched_by_mpi()) {
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    initialized_ = true;
    comm_ = std::make_unique<MpiCommunicator>();
  } else {
    comm_ = std::make_unique<SerialCommunicator>();
  }
}

MpiRuntime::~MpiRuntime() {
  if (initialized_) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
}

}  // namespace bvi::reduce
