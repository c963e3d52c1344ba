// Process-wide tuning of glibc's malloc for columnar scans.
#pragma once

namespace silt {

// Scans allocate and free megabyte-sized column buffers for every row range. With glibc's
// defaults each of them is mmap-ed and unmapped again, so every range pays its first-touch page
// faults (measured: a scan 5× slower). This keeps such buffers in the heap (mmap only above
// 256 MB, trim above 512 MB). It changes the whole process's allocator settings, applies once
// per process (later calls do nothing), and is a no-op on other C libraries.
void TuneAllocatorForScans();

}  // namespace silt
