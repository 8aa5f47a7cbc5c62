// AtomicFileWriter: the target changes only on commit, whole; a writer dropped before commit
// leaves the target as it was and no temporary file behind.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/atomic_file_writer.hpp"
#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_atomic_file_writer {

using bvi::AtomicFileWriter;
using bvi::ExitCode;

namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t files_in(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

TEST_CASE("the target gets the pieces on commit, and not before") {
  bvi::test::TempDir dir;
  const std::string path = dir.write("out.csv", "old\n");
  {
    AtomicFileWriter w(path);
    w.write("new ");
    w.write("content\n");
    w.finish();
    CHECK(read(path) == "old\n");
    w.commit();
  }
  CHECK(read(path) == "new content\n");
  CHECK(files_in(dir.path()) == 1);
}

TEST_CASE("a writer dropped before commit leaves the old file and no temporary") {
  bvi::test::TempDir dir;
  const std::string path = dir.write("out.csv", "good\n");
  {
    AtomicFileWriter w(path);
    w.write("partial");
    CHECK(files_in(dir.path()) == 2);
  }
  CHECK(read(path) == "good\n");
  CHECK(files_in(dir.path()) == 1);
}

TEST_CASE("an output that cannot be made fails at once with exit code 73") {
  bvi::test::TempDir dir;
  const std::string missing = (dir.path() / "no" / "such" / "out.csv").string();
  bvi::test::expect_error([&] { AtomicFileWriter w(missing); }, ExitCode::cant_create, missing,
                          "cannot create");
  const std::string folder = dir.path().string();
  bvi::test::expect_error([&] { AtomicFileWriter w(folder); }, ExitCode::cant_create, folder, "is a folder");
  bvi::test::expect_error([&] { AtomicFileWriter w("/dev/null"); }, ExitCode::cant_create, "/dev/null",
                          "not a regular file");
}

}  // namespace test_atomic_file_writer
