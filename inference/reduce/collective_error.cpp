#include "inference/reduce/collective_error.hpp"

namespace bvi::reduce {

void agree_on_failure(Communicator& comm, const Error* local) {
  // The lowest failing rank wins: max of (size - rank) over failing ranks.
  long key = local ? comm.size() - comm.rank() : 0;
  comm.allreduce_max(&key, 1);
  if (key == 0) return;
  const int root = comm.size() - static_cast<int>(key);
  double code = local ? static_cast<double>(local->code()) : 0.0;
  std::string where = local ? local->where() : std::string();
  std::string what = local ? local->detail() : std::string();
  comm.broadcast(&code, 1, root);
  comm.broadcast(where, root);
  comm.broadcast(what, root);
  if (comm.size() > 1 && root != 0) where = where.empty() ? "rank " + std::to_string(root) : where;
  throw Error(static_cast<ExitCode>(static_cast<int>(code)), where, what).mark_collective();
}

}  // namespace bvi::reduce
