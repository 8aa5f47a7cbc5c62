#pragma once
// Asserts that a call fails the way SPEC.md promises: a bvi::Error with this exit code, exactly
// this `where`, a message containing `fragment`, and on one line.
#include <doctest/doctest.h>

#include <string>

#include "common/error.hpp"

namespace bvi::test {

template <class F>
void expect_error(F&& f, ExitCode code, const std::string& where, const std::string& fragment) {
  bool threw = false;
  try {
    f();
  } catch (const Error& e) {
    threw = true;
    INFO("message: ", std::string(e.what()));
    CHECK(static_cast<int>(e.code()) == static_cast<int>(code));
    CHECK(e.where() == where);
    CHECK(e.detail().find(fragment) != std::string::npos);
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
  }
  CHECK_MESSAGE(threw, "expected a bvi::Error at ", where, " containing: ", fragment);
}

}  // namespace bvi::test
