// The study's registries of variants, filled once in the order the report presents them.
#include "ryoo/applications.hpp"
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

const harness::Registry<EliminationVariant>& elimination_variants() {
    static const harness::Registry<EliminationVariant> registry = [] {
        harness::Registry<EliminationVariant> r("elimination variant");
        add_elimination_variants(r);
        return r;
    }();
    return registry;
}

const harness::Registry<TpacfVariant>& tpacf_variants() {
    static const harness::Registry<TpacfVariant> registry = [] {
        harness::Registry<TpacfVariant> r("TPACF variant");
        add_tpacf_variants(r);
        return r;
    }();
    return registry;
}

const harness::Registry<Rc5Variant>& rc5_variants() {
    static const harness::Registry<Rc5Variant> registry = [] {
        harness::Registry<Rc5Variant> r("RC5-72 variant");
        add_rc5_variants(r);
        return r;
    }();
    return registry;
}

const harness::Registry<PnsVariant>& pns_variants() {
    static const harness::Registry<PnsVariant> registry = [] {
        harness::Registry<PnsVariant> r("Petri-net variant");
        add_pns_variants(r);
        return r;
    }();
    return registry;
}

const harness::Registry<H264Variant>& h264_variants() {
    static const harness::Registry<H264Variant> registry = [] {
        harness::Registry<H264Variant> r("H.264 SAD variant");
        add_h264_variants(r);
        return r;
    }();
    return registry;
}

const harness::Registry<RpesVariant>& rpes_variants() {
    static const harness::Registry<RpesVariant> registry = [] {
        harness::Registry<RpesVariant> r("RPES variant");
        add_rpes_variants(r);
        return r;
    }();
    return registry;
}

const harness::Registry<FdtdVariant>& fdtd_variants() {
    static const harness::Registry<FdtdVariant> registry = [] {
        harness::Registry<FdtdVariant> r("FDTD variant");
        add_fdtd_variants(r);
        return r;
    }();
    return registry;
}

const harness::Registry<LbmVariant>& lbm_variants() {
    static const harness::Registry<LbmVariant> registry = [] {
        harness::Registry<LbmVariant> r("LBM variant");
        add_lbm_variants(r);
        return r;
    }();
    return registry;
}

const harness::Registry<FemVariant>& fem_variants() {
    static const harness::Registry<FemVariant> registry = [] {
        harness::Registry<FemVariant> r("FEM variant");
        add_fem_variants(r);
        return r;
    }();
    return registry;
}

}  // namespace ryoo
