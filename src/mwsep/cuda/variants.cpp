#include "mwsep/cuda/variants.hpp"

#include "harness/registry.hpp"
#include "mwsep/cuda/compressed_family.hpp"
#include "mwsep/cuda/modern_family.hpp"
#include "mwsep/cuda/thesis_family.hpp"

namespace mwsep::cuda {
namespace {

const harness::Registry<VariantInfo>& registry() {
    static const harness::Registry<VariantInfo> table = [] {
        std::vector<ThesisVariant> thesis;
#define MWSEP_MEMORY_FAMILY(name) add_##name##_variants(thesis);
#include "mwsep/memory_families.def"
        std::vector<ModernVariant> modern;
        add_modern_variants(modern);
        harness::Registry<VariantInfo> r("kernel variant");
        for (const auto& v : thesis) r.add({v.kernels.name, v.kernels, std::make_shared<ThesisFamily>(v)});
        for (const auto& v : modern) r.add({v.kernels.name, v.kernels, std::make_shared<ModernFamily>(v)});
        std::vector<CompressedVariant> compressed;  // a different algorithm (compressed_family.hpp)
        add_compressed_variants(compressed);
        for (const auto& v : compressed) r.add({v.kernels.name, v.kernels, std::make_shared<CompressedFamily>(v)});
        return r;
    }();
    return table;
}

}  // namespace

const std::vector<VariantInfo>& variants() { return registry().entries(); }

const VariantInfo& find_variant(const std::string& name) { return registry().find(name); }

std::vector<const VariantInfo*> select_variants(const std::string& list) {
    // `all` and patterns select the variants that compute the exact sum; the compressed quadrature, a
    // different algorithm, is selected only by its own name, so that it never stands in a table of kernels.
    std::vector<const VariantInfo*> chosen = registry().select(list);
    const auto named = [&](const std::string& name) {
        std::size_t start = 0;
        while (true) {
            const std::size_t comma = list.find(',', start);
            if (list.compare(start, comma == std::string::npos ? std::string::npos : comma - start, name) == 0) return true;
            if (comma == std::string::npos) return false;
            start = comma + 1;
        }
    };
    std::erase_if(chosen, [&](const VariantInfo* v) { return v->kernels.axes.family == "compressed" && !named(v->name); });
    return chosen;
}

}  // namespace mwsep::cuda
