// The study's registries of variants, filled once in the order the report presents them.
#include "ryoo/variants.hpp"

namespace ryoo {

const harness::Registry<GemmVariant>& gemm_variants() {
    static const harness::Registry<GemmVariant> registry = [] {
        harness::Registry<GemmVariant> r("matrix-multiplication variant");
        add_classic_variants(r);
        add_register_tiled_variants(r);
        add_library_variants(r);
        return r;
    }();
    return registry;
}

const harness::Registry<StreamVariant>& stream_variants() {
    static const harness::Registry<StreamVariant> registry = [] {
        harness::Registry<StreamVariant> r("stream variant");
        add_stream_variants(r);
        return r;
    }();
    return registry;
}

}  // namespace ryoo
