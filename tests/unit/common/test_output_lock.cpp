// OutputLock: one holder at a time (flock locks per open file, so two locks in one process
// exclude each other as two processes do), the lock file gone after a normal release, and a file
// left behind by a killed run taken over.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/output_lock.hpp"
#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_output_lock {

using bvi::ExitCode;
using bvi::OutputLock;

namespace {

std::string read(const std::string& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("a second lock on the same outputs fails while the first is held, naming its holder") {
  bvi::test::TempDir dir;
  const std::string path = bvi::folder_lock_path(dir.path().string());
  {
    OutputLock first(path, "out");
    CHECK(first.held());
    CHECK(read(path) == std::to_string(::getpid()) + "\n");
    bvi::test::expect_error([&] { OutputLock second(path, "out"); }, ExitCode::cant_create, "out",
                            "another bayes-vi run (pid " + std::to_string(::getpid()) + ") is writing here");
    CHECK(first.held());  // the failed attempt did not take the file away
    CHECK(std::filesystem::exists(path));
  }
  CHECK_FALSE(std::filesystem::exists(path));
  OutputLock again(path, "out");
  CHECK(again.held());
}

TEST_CASE("a lock file left by a killed run is taken over") {
  bvi::test::TempDir dir;
  const std::string path = dir.write(".bayes-vi.lock", "99999999\n");
  OutputLock lock(path, "out");
  CHECK(lock.held());
  CHECK(read(path) == std::to_string(::getpid()) + "\n");
}

TEST_CASE("a moved lock is still held, once") {
  bvi::test::TempDir dir;
  const std::string path = bvi::file_lock_path((dir.path() / "run.ckpt").string());
  CHECK(path == (dir.path() / "run.ckpt.lock").string());
  OutputLock a(path, "run.ckpt");
  OutputLock b(std::move(a));
  CHECK_FALSE(a.held());
  CHECK(b.held());
  OutputLock c;
  c = std::move(b);
  CHECK(c.held());
  CHECK_THROWS_AS(OutputLock(path, "run.ckpt"), bvi::Error);
}

TEST_CASE("a lock file that cannot be created is an output error") {
  bvi::test::TempDir dir;
  bvi::test::expect_error([&] { OutputLock l((dir.path() / "no/such/folder/.lock").string(), "out"); },
                          ExitCode::cant_create, "out", "cannot create the lock file");
}

}  // namespace test_output_lock
