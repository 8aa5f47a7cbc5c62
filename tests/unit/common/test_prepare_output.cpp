// prepare_output_file: a single output (a checkpoint, --metrics) is checked before the work, and
// the check leaves nothing behind.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "common/atomic_file.hpp"
#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_prepare_output {

using bvi::ExitCode;
using bvi::prepare_output_file;
using bvi::test::expect_error;

namespace fs = std::filesystem;

TEST_CASE("a file in an existing folder can be prepared, whether or not it exists") {
  bvi::test::TempDir dir;
  prepare_output_file((dir.path() / "state.ckpt").string());
  CHECK(fs::is_empty(dir.path()));  // the probe is gone
  const std::string old = dir.write("state.ckpt", "previous\n");
  prepare_output_file(old);
  CHECK(fs::file_size(old) == 9);  // untouched
}

TEST_CASE("an output file in a folder that does not exist, or that is not a folder") {
  bvi::test::TempDir dir;
  const std::string missing = (dir.path() / "no/such/dir/state.ckpt").string();
  expect_error([&] { prepare_output_file(missing); }, ExitCode::cant_create, missing, "does not exist");
  CHECK_FALSE(fs::exists(dir.path() / "no"));  // not created
  const std::string file = dir.write("plain", "x");
  const std::string below = file + "/state.ckpt";
  expect_error([&] { prepare_output_file(below); }, ExitCode::cant_create, below, "is not a folder");
}

TEST_CASE("an output path that is a folder or a device") {
  bvi::test::TempDir dir;
  fs::create_directory(dir.path() / "state.ckpt");
  const std::string folder = (dir.path() / "state.ckpt").string();
  expect_error([&] { prepare_output_file(folder); }, ExitCode::cant_create, folder, "is a folder");
  expect_error([] { prepare_output_file("/dev/null"); }, ExitCode::cant_create, "/dev/null",
               "not a regular file");
}

TEST_CASE("a folder where files cannot be created") {
  // /proc accepts no new files, for root too.
  expect_error([] { prepare_output_file("/proc/state.ckpt"); }, ExitCode::cant_create, "/proc/state.ckpt",
               "cannot create files in /proc");
  if (::geteuid() != 0) {
    bvi::test::TempDir dir;
    fs::create_directory(dir.path() / "ro");
    ::chmod((dir.path() / "ro").c_str(), 0555);
    const std::string path = (dir.path() / "ro/state.ckpt").string();
    expect_error([&] { prepare_output_file(path); }, ExitCode::cant_create, path, "ermission denied");
    ::chmod((dir.path() / "ro").c_str(), 0755);
  }
}

}  // namespace test_prepare_output
