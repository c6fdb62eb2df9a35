#include <stdexcept>

#include "gpu_variants.hpp"
#include "registration.hpp"

namespace kirk_hwu::gpu {

std::string problem_name(Problem p) {
    switch (p) {
        case Problem::mri_q: return "mri-q";
        case Problem::mri_fhd: return "mri-fhd";
        case Problem::coulomb: return "coulomb";
    }
    return "?";
}

Problem parse_problem(const std::string& text) {
    for (Problem p : {Problem::mri_q, Problem::mri_fhd, Problem::coulomb})
        if (problem_name(p) == text) return p;
    throw std::invalid_argument("unknown problem '" + text + "'; the valid problems are: mri-q, mri-fhd, coulomb");
}

const harness::Registry<Variant>& variants() {
    static const harness::Registry<Variant> registry = [] {
        harness::Registry<Variant> r("kernel variant");
        add_mri_variants(r);
        add_coulomb_variants(r);
        return r;
    }();
    return registry;
}

std::vector<Variant> variants_of(Problem p) {
    std::vector<Variant> out;
    for (const auto& v : variants().entries())
        if (v.problem == p) out.push_back(v);
    return out;
}

}  // namespace kirk_hwu::gpu
