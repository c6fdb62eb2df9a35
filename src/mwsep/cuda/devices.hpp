/// @file devices.hpp
/// @brief Which CUDA devices run an evaluation: the count, the thesis's ranking, and the choice of one.
#pragma once

#include <vector>

namespace mwsep::cuda {

/// Whether a device of compute capability @p major.@p minor has double precision: 1.3 and later, the rule by
/// which the project's server sent the CUDA application only to such hosts (thesis 2.1), applied here when a
/// device is chosen.
bool supports_double(int major, int minor);

/// The number of CUDA devices; harness::NoGpu saying why when no GPU can be used.
int device_count();

/// Every device (with double precision, when @p need_double), ranked as the thesis chose: largest SM
/// count x clock rate first, the lower index first among equals. Throws CudaError if none qualifies.
std::vector<int> ranked_devices(bool need_double);

/// Picks a device as the thesis did: @p requested if >= 0 (it must support double precision when
/// @p need_double), otherwise the one with the largest SM count x clock rate. Throws CudaError if none.
int select_device(int requested, bool need_double);

}  // namespace mwsep::cuda
