#pragma once
// The few collectives the tool needs, behind an interface with a serial implementation, so the
// same code runs alone and under mpirun (every rank runs the same program in the same order).
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
  // Element-wise sum/max of `n` values over ranks, in place (only for order-independent data:
  // integers and flags; floating-point sums go through allgatherv to keep the order fixed).
  virtual void allreduce_max(long* values, int n) = 0;
  virtual void broadcast(double* values, long n, int root) = 0;
  virtual void broadcast(std::string& text, int root) = 0;
};

class SerialCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void allgatherv(const double* send, const std::vector<long>& counts, double* recv) override {
    if (send != recv)
      for (long i = 0; i < counts[0]; ++i) recv[i] = send[i];
  }
  void allreduce_max(long*, int) override {}
  void broadcast(double*, long, int) override {}
  void broadcast(std::string&, int) override {}
};

}  // namespace bvi::reduce
