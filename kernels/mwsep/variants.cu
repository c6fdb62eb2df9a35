/// @file variants.cu
/// @brief The table of the kernel variants: the 32 of the thesis from the four memory-family units, and the modern ones.
#include <stdexcept>

#include "cuda_check.hpp"
#include "variant_table.hpp"

namespace mwsep::cuda {

const std::vector<VariantInfo>& variants() {
    static const std::vector<VariantInfo> table = [] {
        std::vector<VariantInfo> t;
        add_global_variants(t);
        add_constant_variants(t);
        add_texture_variants(t);
        add_shared_variants(t);
        add_modern_variants(t);
        return t;
    }();
    return table;
}

const VariantInfo& find_variant(const std::string& name) {
    for (const auto& v : variants())
        if (v.name == name) return v;
    std::string known;
    for (const auto& v : variants()) known += (known.empty() ? "" : ", ") + v.name;
    throw CudaError("unknown kernel variant '" + name + "'; the variants are: " + known);
}

}  // namespace mwsep::cuda
