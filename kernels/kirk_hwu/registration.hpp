/// @file registration.hpp
/// @brief The functions each kernel file ends with: they add that file's variants to the registry.
#pragma once

#include "gpu_variants.hpp"

namespace kirk_hwu::gpu {

/// Adds the MRI variants (Q, then F^H d), in the documents' order (mri_kernels.cu).
void add_mri_variants(harness::Registry<Variant>& r);
/// Adds the Coulomb variants, in the documents' order (coulomb_kernels.cu).
void add_coulomb_variants(harness::Registry<Variant>& r);

}  // namespace kirk_hwu::gpu
