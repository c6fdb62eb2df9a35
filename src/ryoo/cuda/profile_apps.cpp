// `ryoo profile-apps` and the application kernels of `ryoo variants --apps`: every application kernel with its
// variant and application, and exactly one launch of each named one (no check) for the profiler.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "harness/check.hpp"
#include "harness/device_memory.hpp"
#include "harness/options.hpp"
#include "kirk_hwu/gpu_variants.hpp"
#include "kirk_hwu/inputs.hpp"
#include "ryoo/app/commands.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/core/matrix.hpp"
#include "ryoo/cpu/elimination.hpp"
#include "ryoo/cpu/fdtd.hpp"
#include "ryoo/cpu/fem.hpp"
#include "ryoo/cpu/h264.hpp"
#include "ryoo/cpu/lbm.hpp"
#include "ryoo/cpu/rc5.hpp"
#include "ryoo/cpu/rpes.hpp"
#include "ryoo/cpu/tpacf.hpp"
#include "ryoo/cuda/apps/tpacf_points.hpp"
#include "ryoo/h264_math.hpp"
#include "ryoo/variants.hpp"

namespace ryoo::app {
namespace {

using harness::check;

/// Every application kernel: its variant, its application and its facts on this device.
struct AppKernel {
    std::string variant, application;
    KernelFacts facts;
};

/// The application name of a kirk_hwu computation in this study ("mri-q", "mri-fhd", "cp").
std::string borrowed_application(kirk_hwu::gpu::Problem p) {
    return p == kirk_hwu::gpu::Problem::coulomb ? "cp" : kirk_hwu::gpu::problem_name(p);
}

std::vector<AppKernel> app_kernels() {
    std::vector<AppKernel> out;
    for (const auto& v : gemm_variants().entries()) {
        if (v.step == "library") continue;
        try {
            out.push_back({v.name, "matmul", v.prepare().facts});
        } catch (const std::runtime_error& e) {
            std::fprintf(stderr, "ryoo variants: %s not listed: %s\n", v.name.c_str(), e.what());
        }
    }
    for (const auto& v : kirk_hwu::gpu::variants().entries())
        if (v.kernel)
            out.push_back({v.name, borrowed_application(v.problem), KernelFacts{v.kernel, v.default_threads, v.dynamic_shared, 0}});
    for (const auto& v : elimination_variants().entries()) out.push_back({v.name, "elimination", v.facts()});
    for (const auto& v : tpacf_variants().entries()) {
        try {
            out.push_back({v.name, "tpacf", v.prepare().facts});
        } catch (const std::runtime_error& e) {
            std::fprintf(stderr, "ryoo variants: %s not listed: %s\n", v.name.c_str(), e.what());
        }
    }
    for (const auto& v : rc5_variants().entries()) out.push_back({v.name, "rc5", v.facts()});
    for (const auto& v : pns_variants().entries()) out.push_back({v.name, "pns", v.facts(8)});
    for (const auto& v : h264_variants().entries()) out.push_back({v.name, "h264", v.facts()});
    for (const auto& v : rpes_variants().entries()) out.push_back({v.name, "rpes", v.facts()});
    for (const auto& v : fdtd_variants().entries()) out.push_back({v.name, "fdtd", v.facts()});
    for (const auto& v : lbm_variants().entries()) out.push_back({v.name, "lbm", v.facts()});
    for (const auto& v : fem_variants().entries()) out.push_back({v.name, "fem", v.facts()});
    return out;
}

/// Every registered application kernel as (application, variant), read from the registries alone (no device
/// touched): the names `--variants` may give.
std::vector<std::pair<std::string, std::string>> application_variants() {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& v : gemm_variants().entries())
        if (v.step != "library") out.emplace_back("matmul", v.name);
    for (const auto& v : kirk_hwu::gpu::variants().entries())
        if (v.kernel) out.emplace_back(borrowed_application(v.problem), v.name);
    for (const auto& v : elimination_variants().entries()) out.emplace_back("elimination", v.name);
    for (const auto& v : tpacf_variants().entries()) out.emplace_back("tpacf", v.name);
    for (const auto& v : rc5_variants().entries()) out.emplace_back("rc5", v.name);
    for (const auto& v : pns_variants().entries()) out.emplace_back("pns", v.name);
    for (const auto& v : h264_variants().entries()) out.emplace_back("h264", v.name);
    for (const auto& v : rpes_variants().entries()) out.emplace_back("rpes", v.name);
    for (const auto& v : fdtd_variants().entries()) out.emplace_back("fdtd", v.name);
    for (const auto& v : lbm_variants().entries()) out.emplace_back("lbm", v.name);
    for (const auto& v : fem_variants().entries()) out.emplace_back("fem", v.name);
    return out;
}

}  // namespace

void print_application_names() {
    for (const auto& [application, name] : application_variants()) std::printf("%s %s\n", application.c_str(), name.c_str());
}

void print_application_kernels(int max_warps) {
    for (const auto& k : app_kernels()) {
        const KernelFacts& f = k.facts;
        cudaFuncAttributes a{};
        check(cudaFuncGetAttributes(&a, f.function), "read a kernel's attributes");
        int blocks = 0;
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f.function, f.threads_per_block, f.dynamic_smem),
              "compute the occupancy");
        const int warps = blocks * ((f.threads_per_block + 31) / 32);
        const char* symbol = nullptr;
        check(cudaFuncGetName(&symbol, f.function), "read a kernel's name");
        std::printf("%s,%s,%d,%d,%zu,%zu,%zu,%d,%d,%.2f,%d,%s\n", k.variant.c_str(), k.application.c_str(), f.threads_per_block,
                    a.numRegs, a.localSizeBytes, a.sharedSizeBytes, f.dynamic_smem, blocks, warps, 100.0 * warps / max_warps,
                    f.imposed_blocks_per_sm, symbol);
    }
}

int command_profile_apps(const Args& args) {
    namespace opt = harness::option;
    const harness::Options o(
        args,
        {opt::value("--variants", "all|NAME,...",
                    "the application kernels to launch, in this order (`ryoo variants --names` lists them)", "all"),
         opt::value("--size", "small|large", "the inputs the kernels run on", "small")},
        "ryoo profile-apps",
        {{}, "Exactly one launch of each named application kernel, in the order given, with no check (for Nsight "
             "Compute): the first elimination step, the DR histogram of the first random set, the search of the GPU "
             "range, every trajectory in one launch, the 4x4 SAD search of the frame, the RPES kernel over every bra "
             "pair, the FDTD electric-field update (2048^2 cells large, 256^2 small), one LBM step (128^3 cells "
             "large, 32^3 small), the product (n = 4096 large, 256 small), and for MRI-Q, MRI-FHD and CP one staged "
             "chunk of samples or atoms over the documents' voxels or one slice of their lattice (128^3 voxels or a "
             "512 x 512 slice when large, 8^3 or 16 x 16 when small), so that each is one launch. The order is "
             "printed as 'launch <i>: <variant>'.",
         {}});
    // The usage errors before any kernel is asked for its facts (which needs a GPU).
    std::vector<std::string> registered;
    for (const auto& v : application_variants()) registered.push_back(v.second);
    for (const auto& n : split_names(o.text("--variants", "all"), registered))
        if (std::find(registered.begin(), registered.end(), n) == registered.end())
            throw o.error("--variants", "unknown application variant '" + n + "'");
    const bool large = o.choice("--size", {"small", "large"}, "small") == "large";
    std::vector<std::string> all;
    for (const auto& k : app_kernels()) all.push_back(k.variant);
    const auto names = split_names(o.text("--variants", "all"), all);
    for (const auto& n : names)
        if (std::find(all.begin(), all.end(), n) == all.end()) throw o.error("--variants", "unknown application variant '" + n + "'");
    harness::Stream stream;
    const cudaStream_t s = stream.get();
    harness::DeviceMemory memory;
    int launch = 0;
    for (const auto& name : names) {
        if (name.rfind("ge-", 0) == 0) {
            const LinearSystem sys = dominant_system(large ? 4096 : 128, 1);
            float* a = memory.upload(sys.a, "upload the system");
            elimination_variants().find(name).step(a, sys.n, sys.ld, 0, s);
        } else if (name.rfind("tpacf-", 0) == 0) {
            const int points = large ? 8192 : 512;
            const TpacfInput in = synthetic_sky(points, 1, 20, 1);
            set_tpacf_edges(in.edge_cosines);
            const float4* d = memory.upload(as_float4(in.data.data(), points), "upload the data points");
            const float4* r = memory.upload(as_float4(in.random.data(), points), "upload the random points");
            auto* h = memory.allocate<unsigned long long>(in.slots(), "allocate the histogram");
            check(cudaMemsetAsync(h, 0, sizeof(unsigned long long) * in.slots(), s), "clear the histogram");
            tpacf_variants().find(name).prepare().run(d, points, r, points, false, h, s);
        } else if (gemm_variants().contains(name)) {
            const int n = large ? 4096 : 256;
            const Matrix a = random_matrix(n, 1), b = random_matrix(n, 2);
            float* da = memory.upload(a.data, "upload A");
            float* db = memory.upload(b.data, "upload B");
            float* dc = memory.allocate<float>(a.data.size(), "allocate C");
            gemm_variants().find(name).prepare().run(da, db, dc, n, s);
        } else if (kirk_hwu::gpu::variants().contains(name)) {
            namespace kg = kirk_hwu::gpu;
            const kg::Variant& v = kg::variants().find(name);
            const int terms = v.default_chunk > 0 ? v.default_chunk : 2048;
            if (v.problem == kg::Problem::coulomb) {
                const kirk_hwu::CoulombInput in = kirk_hwu::make_coulomb_input({large ? 512 : 16, large ? 512 : 16, 1, terms}, 1);
                kg::CoulombDevice device(in);
                v.coulomb(device, {}, s);
            } else {
                const kirk_hwu::MriInput in = kirk_hwu::make_mri_input({large ? 128 : 8, terms}, 1);
                kg::MriDevice device(in, v.problem == kg::Problem::mri_q ? kirk_hwu::MriOutput::q : kirk_hwu::MriOutput::fhd, v.fp64);
                v.mri(device, {}, s);
                check(cudaStreamSynchronize(s), "run the profiled launch");
            }
        } else if (name.rfind("sad-", 0) == 0) {
            const int width = large ? 1280 : 176, height = large ? 720 : 144, range = 16;
            const H264Frames f = synthetic_frames(width, height, range, 2, 1);
            H264DeviceFrames frames(width, height);
            frames.upload(f.current.data(), f.reference.data(), s);
            auto* sad4 = memory.allocate<std::uint16_t>(static_cast<std::size_t>(f.blocks4()) * h264_positions(range), "allocate the SADs");
            h264_variants().find(name).run(frames, range, sad4, s);
            check(cudaStreamSynchronize(s), "run the profiled launch");
        } else if (name.rfind("rpes-", 0) == 0) {
            const RpesPacked p = rpes_pack(rpes_pairs(rpes_molecule(large ? 4 : 2, large ? 6 : 4, 2.0), 1));
            set_rpes_table(rpes_fit_table());
            const int m = static_cast<int>(p.k.size());
            auto* geometry = memory.allocate<float4>(static_cast<std::size_t>(m), "allocate the pair geometry");
            check(cudaMemcpyAsync(geometry, p.geometry.data(), p.geometry.size() * sizeof(float), cudaMemcpyHostToDevice, s),
                  "upload the pair geometry");
            const float* k = memory.upload(p.k, "upload the pair factors");
            const float* kd = memory.upload(p.kd, "upload the ket factors");
            auto* j = memory.allocate<float>(static_cast<std::size_t>(m), "allocate J");
            rpes_variants().find(name).run(geometry, k, kd, m, j, s);
        } else if (name.rfind("fdtd-", 0) == 0) {
            const int edge = large ? 2048 : 256;
            const FdtdInput in = synthetic_medium(edge, edge);
            FdtdDevice d;
            d.nx = d.ny = edge;
            d.source_index = in.source_index();
            d.ex = memory.allocate<float>(in.cells(), "allocate Ex");
            d.ey = memory.allocate<float>(in.cells(), "allocate Ey");
            d.hz = memory.allocate<float>(in.cells(), "allocate Hz");
            check(cudaMemsetAsync(d.hz, 0, in.cells() * sizeof(float), s), "clear Hz");
            d.ce = memory.upload(in.ce, "upload the E coefficients");
            d.ch = memory.upload(in.ch, "upload the H coefficients");
            fdtd_variants().find(name).electric(d, s);
        } else if (name.rfind("fem-", 0) == 0) {
            const FemMesh shuffled = synthetic_fem_mesh(large ? 128 : 16);
            const FemVariant& v = fem_variants().find(name);
            const FemMesh mesh = v.row_ordered ? fem_row_ordered(shuffled) : shuffled;
            const FemState state = fem_initial(mesh);
            FemDevice d;
            d.row_start = memory.upload(mesh.row_start, "upload the row offsets");
            d.column = memory.upload(mesh.column, "upload the column indices");
            d.value = memory.upload(mesh.value, "upload the stiffness values");
            d.step_weight = memory.upload(mesh.step_weight, "upload the step weights");
            d.v = memory.upload(state.v, "upload the velocity");
            d.dt = mesh.dt;
            d.nodes = static_cast<int>(mesh.nodes());
            const float* u = memory.upload(state.u, "upload the displacement");
            v.step(d, u, memory.allocate<float>(mesh.nodes(), "allocate the next displacement"), s);
        } else if (name.rfind("lbm-", 0) == 0) {
            const LbmInput in = lbm_cavity(large ? 128 : 32, large ? 128 : 32, large ? 128 : 32, 1.2f, 0.05f, true, true);
            const LbmVariant& v = lbm_variants().find(name);
            const std::vector<float> rest = lbm_rest(in);
            const float* src = memory.upload(v.soa ? lbm_to_soa(rest, in.cells()) : rest, "upload the lattice");
            float* dst = memory.allocate<float>(rest.size(), "allocate the second lattice");
            LbmGeometry g;
            g.flags = memory.upload(in.flags, "upload the cell flags");
            g.nx = in.nx;
            g.ny = in.ny;
            g.nz = in.nz;
            g.omega = in.omega;
            g.lid_velocity = in.lid_velocity;
            v.step(src, dst, g, s);
        } else if (name.rfind("rc5-", 0) == 0) {
            auto* found = memory.allocate<Rc5Found>(1, "allocate the search result");
            const Rc5Found none;
            check(cudaMemcpyAsync(found, &none, sizeof none, cudaMemcpyHostToDevice, s), "reset the search result");
            rc5_variants().find(name).run(rc5_challenge(1, 12345), 0, large ? 1ull << 32 : 1ull << 22, found, s);
        } else {
            const std::uint32_t count = large ? 65536 : 512;
            auto* state = memory.allocate<std::uint8_t>(64u * count, "allocate the markings");
            auto* firings = memory.allocate<std::uint32_t>(count, "allocate the firings");
            pns_variants().find(name).run(8, 1, large ? 8192 : 256, 0, count, state, firings, s);
        }
        check(cudaStreamSynchronize(s), "run the profiled launch");
        std::printf("launch %d: %s\n", launch++, name.c_str());
    }
    return 0;
}

}  // namespace ryoo::app
