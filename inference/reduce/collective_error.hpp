#pragma once
// Agreement on failure across MPI ranks. A step that may fail on some ranks only (a bad row in
// one rank's shard, a file one node cannot read) runs inside collectively(): afterwards either
// every rank succeeded, or every rank throws the same Error, that of the lowest failing rank,
// marked collective. No rank is left waiting in a collective while another has given up.
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "common/error.hpp"
#include "inference/reduce/communicator.hpp"

namespace bvi::reduce {

// Exchanges the outcome of a step. `local` is this rank's error, if any. Throws the agreed error
// on every rank when any rank failed; returns normally when none did.
void agree_on_failure(Communicator& comm, const Error* local);

template <class F>
std::invoke_result_t<F> collectively(Communicator& comm, F&& f) {
  if (comm.size() == 1) {
    try {
      return std::forward<F>(f)();
    } catch (Error& e) {
      e.mark_collective();
      throw;
    }
  }
  // This rank's outcome: the error it threw, if any (as an Error, whatever it was).
  std::optional<Error> local;
  auto attempt = [&](auto&& body) {
    try {
      body();
    } catch (const Error& e) {
      local = e;
    } catch (const std::bad_alloc&) {
      local = Error(ExitCode::os_error, "memory", "out of memory (an allocation failed)");
    } catch (const std::exception& e) {
      local = Error(ExitCode::software, "internal error", e.what());
    }
  };
  using R = decltype(std::forward<F>(f)());
  if constexpr (std::is_void_v<R>) {
    attempt([&] { std::forward<F>(f)(); });
    agree_on_failure(comm, local ? &*local : nullptr);
  } else {
    std::optional<R> result;
    attempt([&] { result.emplace(std::forward<F>(f)()); });
    agree_on_failure(comm, local ? &*local : nullptr);
    return R(std::move(*result));
  }
}

}  // namespace bvi::reduce
