#pragma once
// The few collectives the tool needs, behind an interface with a serial implementation, so the
// same code runs alone and under mpirun (every rank runs the same program in the same order).
#include <cstdlib>
#include <string>
#include <vector>

namespace bvi::reduce {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  bool is_root() const { return rank() == 0; }

  // Every rank contributes `counts[rank()]` doubles from `send`; every rank receives all of them,
  // in rank order, into `recv` (sum of counts).
  virtual void allgatherv(const double* send, const std::vector<long>& counts, double* recv) = 0;
  // Element-wise max of `n` values over ranks, in place. Max is exact in any order, unlike a
  // floating-point sum, which goes through allgatherv so that the order stays fixed.
  virtual void allreduce_max(long* values, int n) = 0;
  virtual void allreduce_max(double* values, int n) = 0;
  // Element-wise sum of integers (exact in any order).
  virtual void allreduce_sum(long* values, int n) = 0;
  virtual void broadcast(double* values, long n, int root) = 0;
  virtual void broadcast(std::string& text, int root) = 0;
  // Ends every rank of the job with `code` (MPI_Abort); for errors the ranks could not agree on.
  [[noreturn]] virtual void abort(int code) = 0;
};

// Sends root's matrix (any shape) to every rank.
template <class Matrix>
void broadcast_matrix(Communicator& comm, Matrix& m, int root) {
  if (comm.size() == 1) return;
  double dims[2] = {static_cast<double>(m.rows()), static_cast<double>(m.cols())};
  comm.broadcast(dims, 2, root);
  m.resize(static_cast<long>(dims[0]), static_cast<long>(dims[1]));
  if (m.size() > 0) comm.broadcast(m.data(), static_cast<long>(m.size()), root);
}

// Every rank's string, in rank order (each rank broadcasts its own in turn): for the few small
// messages of loading (labels, sample cells), not for hot paths.
inline std::vector<std::string> all_strings(const std::string& mine, Communicator& comm) {
  std::vector<std::string> out(static_cast<std::size_t>(comm.size()));
  for (int r = 0; r < comm.size(); ++r) {
    std::string s = r == comm.rank() ? mine : std::string();
    comm.broadcast(s, r);
    out[static_cast<std::size_t>(r)] = std::move(s);
  }
  return out;
}

// Every rank's values, concatenated in rank order (the same vector on every rank).
inline std::vector<double> all_doubles(const std::vector<double>& mine, Communicator& comm) {
  if (comm.size() == 1) return mine;
  std::vector<long> counts(static_cast<std::size_t>(comm.size()), 0);
  counts[static_cast<std::size_t>(comm.rank())] = static_cast<long>(mine.size());
  comm.allreduce_sum(counts.data(), comm.size());
  long total = 0;
  for (long c : counts) total += c;
  std::vector<double> all(static_cast<std::size_t>(total), 0.0);
  comm.allgatherv(mine.data(), counts, all.data());
  return all;
}

class SerialCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void allgatherv(const double* send, const std::vector<long>& counts, double* recv) override {
    if (send != recv)
      for (long i = 0; i < counts[0]; ++i) recv[i] = send[i];
  }
  void allreduce_max(long*, int) override {}
  void allreduce_max(double*, int) override {}
  void allreduce_sum(long*, int) override {}
  void broadcast(double*, long, int) override {}
  void broadcast(std::string&, int) override {}
  [[noreturn]] void abort(int code) override { std::_Exit(code); }
};

}  // namespace bvi::reduce
