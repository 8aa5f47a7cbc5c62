#pragma once
// What a kfold folder's fits were made from, kept as DIR/run.json beside the partition
// (DIR/folds.csv): a resumed run reuses the folds' fits and values, so it must be a run of the
// same model on the same data, not only of the same partition. The record holds the config as
// parse_config resolved it (model, priors, data spec, inference, defaults filled in) without the
// data file's path, and the data file's size and a hash of its bytes (the file moved or copied
// is the same data; one value changed is not).
#include <cstdint>
#include <string>

#include "models/spec/config.hpp"

namespace bvi::cli {

// A 64-bit hash of the file's bytes and their number, read a block at a time (the data may be
// larger than memory). Errors: 66 when it cannot be opened or read.
struct FileHash {
  std::uint64_t bytes = 0;
  std::string hash;  // 16 hex digits
};
FileHash hash_file(const std::string& path);

// The record of a run of `config` (its data file hashed), as DIR/run.json holds it.
spec::Json kfold_run_record(const spec::Config& config);

// What differs between the record a folder holds and this run's: "" when nothing; else the
// config's places that differ (JSON pointers, the first few) and/or "the data file".
std::string kfold_run_difference(const spec::Json& before, const spec::Json& now);

}  // namespace bvi::cli
