// Spark's InputFileBlockHolder: the data file that the rows being processed on this thread come
// from, for input_file_name(). A Delta scan sets it while its workers filter and project a file's
// rows, and on the consumer thread for the chunk its Next() returned, so an expression evaluated
// on those rows (a projection or filter right above the scan) sees their file. It is "" when no
// file is known: no scan below, or the scan that set it is gone.
#pragma once

#include <memory>
#include <string>

namespace silt::exec {

// Sets this thread's input file: `uri` while its owner (the scan) keeps it alive.
void SetInputFile(std::weak_ptr<const std::string> uri);
// This thread's input file URI, or "".
std::string CurrentInputFile();

// Sets the input file for a scope, restoring the previous one after.
class ScopedInputFile {
 public:
  explicit ScopedInputFile(std::weak_ptr<const std::string> uri);
  ~ScopedInputFile();
  ScopedInputFile(const ScopedInputFile&) = delete;
  ScopedInputFile& operator=(const ScopedInputFile&) = delete;

 private:
  std::weak_ptr<const std::string> saved_;
};

}  // namespace silt::exec
