//===- Files.h - temporary folders, digests, input file names ----------------===//
#ifndef ONNXC_DRIVER_FILES_H
#define ONNXC_DRIVER_FILES_H

#include <string>

namespace onnxc {

/// A temporary directory removed (with its contents) when this goes away.
struct ScopedTempDir {
  std::string path; // empty until create() succeeds
  ScopedTempDir() = default;
  ScopedTempDir(const ScopedTempDir &) = delete;
  ScopedTempDir &operator=(const ScopedTempDir &) = delete;
  ~ScopedTempDir();
  bool create(const std::string &prefix);
  std::string file(const std::string &name) const;
};

/// An input's file name stem in an inputs or calibration folder (NAME.pb,
/// NAME.npy): its name, with the characters a file name cannot hold
/// written '_'.
std::string inputFileName(const std::string &name);


/// The hex sha256 of a file's bytes, or "" if it cannot be read.
std::string sha256OfFile(const std::string &path);
/// A hex sha256 over a folder's files (relative paths and contents).
std::string sha256OfTree(const std::string &dir);

} // namespace onnxc

#endif
