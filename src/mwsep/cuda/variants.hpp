/// @file variants.hpp
/// @brief Every kernel variant of the study by name: the 32 of the thesis, the two modern ones and the
/// compressed quadrature (a different algorithm with a controlled error, compressed_family.hpp), each
/// with its kernels and the family that runs it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "mwsep/cuda/kernel_family.hpp"
#include "mwsep/kernel_set.hpp"

namespace mwsep::cuda {

/// One named variant: its kernels and the family that runs it.
struct VariantInfo {
    /// memory-divsqrt-loop-precision, or modern-precision.
    std::string name;
    /// Name, precision, kernel instances with their compiled identities, shared memory.
    KernelSet kernels;
    /// The family that prepares, launches and reduces it.
    std::shared_ptr<const KernelFamily> family;
};

/// All 35 variants, in a fixed order: the thesis's memory families (then division, loop and precision),
/// then the modern ones, then the compressed one.
const std::vector<VariantInfo>& variants();
/// The variant called exactly @p name; harness::UnknownName listing the valid names otherwise.
const VariantInfo& find_variant(const std::string& name);
/// The variants a comma-separated list selects: `all`, names, or patterns such as `*-fast-unrolled-f64`
/// (harness::Registry::select); harness::UnknownName for an item that selects none.
std::vector<const VariantInfo*> select_variants(const std::string& list);

}  // namespace mwsep::cuda
