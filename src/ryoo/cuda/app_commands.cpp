// The commands of the paper's applications beyond matrix multiplication: SAXPY inside Gaussian elimination,
// TPACF, RC5-72 and the Petri-net simulation. Each prepares a deterministic input, computes the CPU result
// (single thread, timed when asked), checks every GPU variant against it, and only then times the GPU's
// kernels, its whole application (transfers and host work included) and its transfers, through the
// harness's measurement engine. One CSV row per kept sample (kind app_bench of experiments/studies/ryoo.py).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/check.hpp"
#include "harness/clock_monitor.hpp"
#include "harness/csv.hpp"
#include "harness/device_memory.hpp"
#include "harness/host_memory.hpp"
#include "harness/measure_cuda.hpp"
#include "harness/measure_options.hpp"
#include "harness/options.hpp"
#include "harness/output_paths.hpp"
#include "ryoo/app/commands.hpp"
#include "kirk_hwu/gpu_variants.hpp"
#include "kirk_hwu/inputs.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/core/matrix.hpp"
#include "ryoo/cuda/app_run.hpp"
#include "ryoo/cpu/elimination.hpp"
#include "ryoo/cpu/h264.hpp"
#include "ryoo/cpu/fdtd.hpp"
#include "ryoo/cpu/fem.hpp"
#include "ryoo/cpu/lbm.hpp"
#include "ryoo/cpu/pns.hpp"
#include "ryoo/cpu/rc5.hpp"
#include "ryoo/cpu/rpes.hpp"
#include "ryoo/cpu/tpacf.hpp"
#include "ryoo/h264_math.hpp"
#include "ryoo/tpacf_math.hpp"
#include "ryoo/variants.hpp"

namespace ryoo::app {
namespace {

using harness::check;

// ---- SAXPY inside Gaussian elimination ------------------------------------------------------------------

/// Bytes the row SAXPYs of the whole elimination move at 12 bytes per element (x and y read, y written).
double elimination_bytes(int n) {
    double bytes = 0;
    for (int k = 0; k + 1 < n; ++k) bytes += 12.0 * (n - k - 1.0) * (n - k);
    return bytes;
}

}  // namespace

int command_elimination(const Args& args) {
    AppRun run(args, "ryoo elimination", {{"--n"}, {"--seed"}});
    if (run.help()) {
        run.print_help("ryoo elimination [--size small|large] [--n N] [--seed 1] [shared options]\n"
                       "  solves A x = b (A diagonally dominant, n = 128 small, 4096 large) by unblocked Gaussian\n"
                       "  elimination whose row updates are SAXPY calls: single-thread CPU (HPL's saxpy), then each GPU\n"
                       "  variant (one kernel per elimination step). Each GPU factorisation must equal the CPU's bit for\n"
                       "  bit and the solution must pass HPL's residual test (< 16) before it is timed. Parts: kernel (the\n"
                       "  elimination steps), application (upload, steps, download, back substitution), transfer (upload\n"
                       "  and download). Rates in GB/s at 12 bytes per SAXPY element.");
        return 0;
    }
    const std::string size = run.options().choice("--size", {"small", "large"}, "small");
    const int n = static_cast<int>(run.options().integer("--n", size == "small" ? 128 : 4096, 2, 32768));
    const auto seed = static_cast<std::uint64_t>(run.options().integer("--seed", 1, 0));
    run.start(elimination_variants().name_list());
    harness::check_host_bytes(run.options(), "--n", 3.0 * 4.0 * n * (n + 33.0), "the system, its reference and a download");
    run.open("elimination");
    const LinearSystem original = dominant_system(n, seed);
    LinearSystem reference = original;
    std::vector<float> x;
    if (run.cpu_samples() > 0) {
        LinearSystem work = original;
        const auto kernel = time_cpu(run, [&] { work = original; eliminate_cpu(work); });
        reference = work;
        const auto application = time_cpu(run, [&] { work = original; eliminate_cpu(work); x = back_substitute(work); });
        const double residual = scaled_residual(original, x);
        const bool ok = residual < 16;
        const std::string checked = "residual " + harness::csv_number(residual);
        run.record("cpu", "", "kernel", kernel, elimination_bytes(n), "B", ok, checked);
        run.record("cpu", "", "application", application, elimination_bytes(n), "B", ok, checked);
    } else {
        eliminate_cpu(reference);
        x = back_substitute(reference);
    }
    const double cpu_residual = scaled_residual(original, x);
    if (!(cpu_residual < 16)) run.failed("cpu", "HPL residual " + std::to_string(cpu_residual) + " is not below 16");
    const std::size_t bytes = original.a.size() * sizeof(float);
    harness::DeviceMemory memory;
    const float* pristine = memory.upload(original.a, "upload the system");
    float* a = memory.allocate<float>(original.a.size(), "allocate the working matrix");
    const cudaStream_t s = run.stream();
    LinearSystem got = original;
    for (const auto& name : run.variants()) {
        const EliminationVariant& v = elimination_variants().find(name);
        const auto steps = [&] { for (int k = 0; k + 1 < n; ++k) v.step(a, n, original.ld, k, s); };
        check(cudaMemcpyAsync(a, pristine, bytes, cudaMemcpyDeviceToDevice, s), "reset the working matrix");
        steps();
        check(cudaMemcpyAsync(got.a.data(), a, bytes, cudaMemcpyDeviceToHost, s), "download the factorisation");
        check(cudaStreamSynchronize(s), "run the checked elimination");
        const bool same = std::memcmp(got.a.data(), reference.a.data(), bytes) == 0;
        const double residual = scaled_residual(original, back_substitute(got));
        if (!same || !(residual < 16)) {
            run.failed(name, same ? "HPL residual " + std::to_string(residual) : "the factorisation differs from the CPU's");
            continue;
        }
        const std::string checked = "bitwise, residual " + harness::csv_number(residual);
        if (run.times("kernel")) {
            const auto m = harness::measure_self_timed(s, run.gpu(), run.monitor(), [&] {
                check(cudaMemcpyAsync(a, pristine, bytes, cudaMemcpyDeviceToDevice, s), "reset the working matrix");
                return event_ms(s, steps);
            });
            run.record(name, "", "kernel", m, elimination_bytes(n), "B", true, checked);
        }
        if (run.times("application")) {
            const auto m = harness::measure_wall(s, run.gpu(), run.monitor(), [&] {
                check(cudaMemcpyAsync(a, original.a.data(), bytes, cudaMemcpyHostToDevice, s), "upload the system");
                steps();
                check(cudaMemcpyAsync(got.a.data(), a, bytes, cudaMemcpyDeviceToHost, s), "download the factorisation");
                check(cudaStreamSynchronize(s), "finish the elimination");
                x = back_substitute(got);
            });
            run.record(name, "", "application", m, elimination_bytes(n), "B", true, checked);
        }
        if (run.times("transfer")) {
            const auto m = harness::measure(s, run.gpu(), run.monitor(), [&] {
                check(cudaMemcpyAsync(a, original.a.data(), bytes, cudaMemcpyHostToDevice, s), "upload the system");
                check(cudaMemcpyAsync(got.a.data(), a, bytes, cudaMemcpyDeviceToHost, s), "download the factorisation");
            });
            run.record(name, "", "transfer", m, 2.0 * bytes, "B", true, "copies");
        }
    }
    return run.finish();
}

// ---- TPACF ------------------------------------------------------------------------------------------------

namespace {

/// The points of @p xyz (3 floats each) as float4 (x, y, z, 0), for 16-byte loads.
std::vector<float4> as_float4(const float* xyz, std::size_t count) {
    std::vector<float4> out(count);
    for (std::size_t i = 0; i < count; ++i) out[i] = make_float4(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2], 0.0f);
    return out;
}

/// Pairs of one run: DD and RR per set n (n - 1) / 2, DR per set n^2.
double tpacf_pairs(int points, int sets) {
    const double n = points;
    return n * (n - 1) / 2 * (1 + sets) + n * n * sets;
}

}  // namespace

int command_tpacf(const Args& args) {
    AppRun run(args, "ryoo tpacf", {{"--points"}, {"--random-sets"}, {"--bins"}, {"--seed"}});
    if (run.help()) {
        run.print_help("ryoo tpacf [--size small|large] [--points N] [--random-sets S] [--bins 20] [--seed 1] [shared options]\n"
                       "  the two-point angular correlation of a synthetic sky (small: 512 points and 2 random sets; large:\n"
                       "  8192 points and 4 random sets; 20 log-spaced bins from 1 to 10,000 arcmin): the DD, DR and RR\n"
                       "  histograms on one CPU thread, then each GPU variant, whose histograms must equal the CPU's exactly\n"
                       "  before it is timed. Parts: kernel (all histograms), application (packing, upload, histograms,\n"
                       "  download, the Landy-Szalay estimate), transfer (upload and download). Rates in Gpairs/s.");
        return 0;
    }
    const std::string size = run.options().choice("--size", {"small", "large"}, "small");
    const int points = static_cast<int>(run.options().integer("--points", size == "small" ? 512 : 8192, 2, 1 << 22));
    const int sets = static_cast<int>(run.options().integer("--random-sets", size == "small" ? 2 : 4, 1, 64));
    const int bins = static_cast<int>(run.options().integer("--bins", 20, 1, tpacf_max_slots - 2));
    const auto seed = static_cast<std::uint64_t>(run.options().integer("--seed", 1, 0));
    run.start(tpacf_variants().name_list());
    harness::check_host_bytes(run.options(), "--points", 28.0 * points * (sets + 1.0), "the points and their packed copies");
    run.open("tpacf");
    const TpacfInput in = synthetic_sky(points, sets, bins, seed);
    const double pairs = tpacf_pairs(points, sets);
    TpacfHistograms reference;
    if (run.cpu_samples() > 0) {
        const auto kernel = time_cpu(run, [&] { reference = tpacf_cpu(in); });
        std::vector<double> w;
        const auto application = time_cpu(run, [&] { w = landy_szalay(tpacf_cpu(in), points, sets); });
        run.record("cpu", "", "kernel", kernel, pairs, "pairs", true, "reference");
        run.record("cpu", "", "application", application, pairs, "pairs", true, "reference");
    } else {
        reference = tpacf_cpu(in);
    }
    // The identity every histogram obeys: its total is its number of pairs.
    const auto total = [](const std::uint64_t* h, int slots) { std::uint64_t t = 0; for (int k = 0; k < slots; ++k) t += h[k]; return t; };
    const std::uint64_t self_pairs = static_cast<std::uint64_t>(points) * (points - 1) / 2;
    if (total(reference.dd.data(), reference.slots) != self_pairs) run.failed("cpu", "DD total is not n (n - 1) / 2");
    set_tpacf_edges(in.edge_cosines);
    const int slots = in.slots();
    harness::DeviceMemory memory;
    const cudaStream_t s = run.stream();
    float4* d_points = memory.allocate<float4>(static_cast<std::size_t>(points) * (sets + 1), "allocate the points");
    unsigned long long* d_hist = memory.allocate<unsigned long long>(static_cast<std::size_t>(slots) * (1 + 2 * sets), "allocate the histograms");
    const std::size_t hist_bytes = sizeof(unsigned long long) * slots * (1 + 2 * sets);
    std::vector<float4> packed;
    const auto pack = [&] {
        packed = as_float4(in.data.data(), points);
        const auto r = as_float4(in.random.data(), static_cast<std::size_t>(points) * sets);
        packed.insert(packed.end(), r.begin(), r.end());
    };
    pack();
    check(cudaMemcpy(d_points, packed.data(), packed.size() * sizeof(float4), cudaMemcpyHostToDevice), "upload the points");
    std::vector<std::uint64_t> got(static_cast<std::size_t>(slots) * (1 + 2 * sets));
    for (const auto& name : run.variants()) {
        const TpacfVariant& v = tpacf_variants().find(name);
        TpacfLaunch l;
        try {
            l = v.prepare();
        } catch (const std::runtime_error& e) {
            run.failed(name, e.what());
            continue;
        }
        const auto histograms = [&] {
            check(cudaMemsetAsync(d_hist, 0, hist_bytes, s), "clear the histograms");
            l.run(d_points, points, d_points, points, true, d_hist, s);
            for (int r = 0; r < sets; ++r) {
                const float4* rs = d_points + static_cast<std::size_t>(points) * (r + 1);
                l.run(d_points, points, rs, points, false, d_hist + slots * (1 + r), s);
                l.run(rs, points, rs, points, true, d_hist + slots * (1 + sets + r), s);
            }
        };
        histograms();
        check(cudaMemcpyAsync(got.data(), d_hist, hist_bytes, cudaMemcpyDeviceToHost, s), "download the histograms");
        check(cudaStreamSynchronize(s), "run the checked histograms");
        TpacfHistograms h = empty_histograms(in);
        std::copy_n(got.begin(), slots, h.dd.begin());
        std::copy_n(got.begin() + slots, slots * sets, h.dr.begin());
        std::copy_n(got.begin() + slots * (1 + sets), slots * sets, h.rr.begin());
        if (!(h == reference)) {
            run.failed(name, "the histograms differ from the CPU's");
            continue;
        }
        if (run.times("kernel"))
            run.record(name, "", "kernel", harness::measure(s, run.gpu(), run.monitor(), histograms), pairs, "pairs", true, "exact");
        if (run.times("application")) {
            const auto m = harness::measure_wall(s, run.gpu(), run.monitor(), [&] {
                pack();
                check(cudaMemcpyAsync(d_points, packed.data(), packed.size() * sizeof(float4), cudaMemcpyHostToDevice, s), "upload the points");
                histograms();
                check(cudaMemcpyAsync(got.data(), d_hist, hist_bytes, cudaMemcpyDeviceToHost, s), "download the histograms");
                check(cudaStreamSynchronize(s), "finish the histograms");
                std::copy_n(got.begin(), slots, h.dd.begin());
                std::copy_n(got.begin() + slots, slots * sets, h.dr.begin());
                std::copy_n(got.begin() + slots * (1 + sets), slots * sets, h.rr.begin());
                (void)landy_szalay(h, points, sets);
            });
            run.record(name, "", "application", m, pairs, "pairs", true, "exact");
        }
        if (run.times("transfer")) {
            const auto m = harness::measure(s, run.gpu(), run.monitor(), [&] {
                check(cudaMemcpyAsync(d_points, packed.data(), packed.size() * sizeof(float4), cudaMemcpyHostToDevice, s), "upload the points");
                check(cudaMemcpyAsync(got.data(), d_hist, hist_bytes, cudaMemcpyDeviceToHost, s), "download the histograms");
            });
            run.record(name, "", "transfer", m, static_cast<double>(packed.size() * sizeof(float4) + hist_bytes), "B", true, "copies");
        }
    }
    return run.finish();
}

// ---- RC5-72 -----------------------------------------------------------------------------------------------

int command_rc5(const Args& args) {
    AppRun run(args, "ryoo rc5", {{"--gpu-keys"}, {"--cpu-keys"}, {"--chunk"}, {"--seed"}});
    if (run.help()) {
        run.print_help("ryoo rc5 [--size small|large] [--gpu-keys N] [--cpu-keys N] [--chunk N] [--seed 1] [shared options]\n"
                       "  the RC5-72 key search (RC5-32/12/9 against a known plaintext) over a range holding one planted\n"
                       "  key: the CPU (native rotate) searches the first cpu-keys keys, each GPU variant gpu-keys keys\n"
                       "  (small: 2^16 and 2^22; large: 2^22 and 2^32); both must find exactly the planted key, and the\n"
                       "  GPU check runs before any timing. Parts: kernel (one launch over the range), application (the\n"
                       "  range in work units of --chunk keys, default 2^26, each launched, its result downloaded and\n"
                       "  checked by the host), transfer (the result downloads). Rates in Gkeys/s: the CPU and the GPU\n"
                       "  search different ranges, so their speed-up is a ratio of rates.");
        return 0;
    }
    const std::string size = run.options().choice("--size", {"small", "large"}, "small");
    const auto gpu_keys = static_cast<std::uint64_t>(run.options().integer("--gpu-keys", size == "small" ? 1LL << 22 : 1LL << 32, 1024, 1LL << 40));
    const auto cpu_keys = static_cast<std::uint64_t>(run.options().integer("--cpu-keys", size == "small" ? 1LL << 16 : 1LL << 22, 1024, 1LL << 34));
    const auto chunk = static_cast<std::uint64_t>(run.options().integer("--chunk", 1LL << 26, 1024, 1LL << 40));
    if (cpu_keys > gpu_keys) throw run.options().error("--cpu-keys", "must not exceed --gpu-keys (the planted key lies in both ranges)");
    const auto seed = static_cast<std::uint64_t>(run.options().integer("--seed", 1, 0));
    run.start(rc5_variants().name_list());
    run.open("rc5");
    const std::uint64_t planted = cpu_keys / 2 + cpu_keys / 7;  // inside both ranges, not at a power of two
    const Rc5Challenge c = rc5_challenge(seed, planted);
    const Rc5Result expected{planted, 1};
    const auto cpu_app = [&] {
        Rc5Result r;
        for (std::uint64_t first = 0; first < cpu_keys; first += chunk) {
            const Rc5Result part = rc5_search_cpu(c, first, std::min(chunk, cpu_keys - first));
            if (part.matches && r.matches == 0) r.first = part.first;
            r.matches += part.matches;
        }
        return r;
    };
    Rc5Result cpu_result;
    if (run.cpu_samples() > 0) {
        const auto kernel = time_cpu(run, [&] { cpu_result = rc5_search_cpu(c, 0, cpu_keys); });
        const bool ok = cpu_result == expected;
        const auto application = time_cpu(run, [&] { cpu_result = cpu_app(); });
        run.record("cpu", "", "kernel", kernel, static_cast<double>(cpu_keys), "keys", ok && cpu_result == expected, "planted key found");
        run.record("cpu", "", "application", application, static_cast<double>(cpu_keys), "keys", cpu_result == expected, "planted key found");
    } else {
        cpu_result = rc5_search_cpu(c, 0, cpu_keys);
        if (!(cpu_result == expected)) run.failed("cpu", "the CPU search did not find exactly the planted key");
    }
    harness::DeviceMemory memory;
    const cudaStream_t s = run.stream();
    Rc5Found* found = memory.allocate<Rc5Found>(1, "allocate the search result");
    const Rc5Found none;
    for (const auto& name : run.variants()) {
        const Rc5Variant& v = rc5_variants().find(name);
        const auto search = [&](std::uint64_t first, std::uint64_t count) {
            check(cudaMemcpyAsync(found, &none, sizeof none, cudaMemcpyHostToDevice, s), "reset the search result");
            v.run(c, first, count, found, s);
        };
        Rc5Found got;
        search(0, gpu_keys);
        check(cudaMemcpyAsync(&got, found, sizeof got, cudaMemcpyDeviceToHost, s), "download the search result");
        check(cudaStreamSynchronize(s), "run the checked search");
        if (got.first != planted || got.matches != 1) {
            run.failed(name, "found key " + std::to_string(got.first) + " (" + std::to_string(got.matches) + " matches), expected " +
                                 std::to_string(planted) + " alone");
            continue;
        }
        if (run.times("kernel"))
            run.record(name, "", "kernel", harness::measure(s, run.gpu(), run.monitor(), [&] { search(0, gpu_keys); }),
                       static_cast<double>(gpu_keys), "keys", true, "planted key found");
        if (run.times("application")) {
            const auto m = harness::measure_wall(s, run.gpu(), run.monitor(), [&] {
                std::uint64_t matches = 0, first_found = ~0ull;
                for (std::uint64_t first = 0; first < gpu_keys; first += chunk) {
                    search(first, std::min(chunk, gpu_keys - first));
                    check(cudaMemcpyAsync(&got, found, sizeof got, cudaMemcpyDeviceToHost, s), "download a work unit's result");
                    check(cudaStreamSynchronize(s), "finish a work unit");
                    if (got.matches && matches == 0) first_found = got.first;
                    matches += got.matches;
                }
                if (first_found != planted || matches != 1) throw std::runtime_error(name + ": the work units lost the planted key");
            });
            run.record(name, "", "application", m, static_cast<double>(gpu_keys), "keys", true, "planted key found");
        }
        if (run.times("transfer")) {
            const std::uint64_t units = (gpu_keys + chunk - 1) / chunk;
            const auto m = harness::measure(s, run.gpu(), run.monitor(), [&] {
                for (std::uint64_t u = 0; u < units; ++u) {
                    check(cudaMemcpyAsync(found, &none, sizeof none, cudaMemcpyHostToDevice, s), "reset the search result");
                    check(cudaMemcpyAsync(&got, found, sizeof got, cudaMemcpyDeviceToHost, s), "download a work unit's result");
                }
            });
            run.record(name, "", "transfer", m, 2.0 * sizeof got * units, "B", true, "copies");
        }
    }
    return run.finish();
}

// ---- PNS --------------------------------------------------------------------------------------------------

int command_pns(const Args& args) {
    AppRun run(args, "ryoo pns", {{"--edge"}, {"--steps"}, {"--trajectories"}, {"--caps"}, {"--seed"}});
    if (run.help()) {
        run.print_help("ryoo pns [--size small|large] [--edge 8] [--steps N] [--trajectories N] [--caps all|N,M,...] [--seed 1]\n"
                       "          [shared options]\n"
                       "  the stochastic Petri-net simulation (an edge x edge torus net, one trajectory per thread; small: 512\n"
                       "  trajectories of 256 steps, large: 65536 of 8192): the CPU, then each GPU variant with at most\n"
                       "  --caps trajectories resident at once (the state buffer holds that many; the rest run in further\n"
                       "  launches: the paper's global-memory capacity emulated). The tokens per place summed over the\n"
                       "  trajectories and the firings must equal the CPU's exactly before timing. Parts: kernel (every\n"
                       "  launch), application (launches, downloads, accumulation), transfer (the downloads).\n"
                       "  Rates in Gsteps/s.");
        return 0;
    }
    const std::string size = run.options().choice("--size", {"small", "large"}, "small");
    PnsProblem p;
    p.edge = static_cast<int>(run.options().integer("--edge", 8, 2, 15));
    p.steps = static_cast<std::uint32_t>(run.options().integer("--steps", size == "small" ? 256 : 8192, 1, 1LL << 30));
    p.trajectories = static_cast<std::uint32_t>(run.options().integer("--trajectories", size == "small" ? 512 : 65536, 1, 1LL << 26));
    p.seed = static_cast<std::uint32_t>(run.options().integer("--seed", 1, 0, 0xffffffffLL));
    std::vector<std::uint32_t> caps;
    for (const auto& t : split_names(run.options().text("--caps", "all"), {"all"}, "--caps")) {
        if (t == "all") {
            caps.push_back(p.trajectories);
            continue;
        }
        const harness::Options one({"--caps", t}, {{"--caps"}}, "ryoo pns");
        caps.push_back(static_cast<std::uint32_t>(one.integer("--caps", 1, 1, 1LL << 26)));
    }
    run.start(pns_variants().name_list());
    const int places = p.places();
    const std::uint32_t most = *std::max_element(caps.begin(), caps.end());
    harness::check_host_bytes(run.options(), "--trajectories", 2.0 * places * static_cast<double>(p.trajectories) + 8.0 * most,
                              "the CPU's and a download's markings");
    run.open("pns");
    const double steps = static_cast<double>(p.steps) * p.trajectories;
    PnsResult reference;
    std::vector<std::uint8_t> cpu_state(static_cast<std::size_t>(places) * p.trajectories);
    std::vector<std::uint32_t> cpu_firings(p.trajectories);
    const auto simulate = [&] {
        std::vector<std::uint8_t> m(places);
        for (std::uint32_t t = 0; t < p.trajectories; ++t) {
            cpu_firings[t] = pns_trajectory_cpu(p, t, m.data());
            for (int q = 0; q < places; ++q) cpu_state[static_cast<std::size_t>(q) * p.trajectories + t] = m[q];
        }
    };
    if (run.cpu_samples() > 0) {
        const auto kernel = time_cpu(run, simulate);
        const auto application = time_cpu(run, [&] { reference = PnsResult{}; simulate(); pns_accumulate(reference, cpu_state.data(), cpu_firings.data(), p.trajectories, places); });
        run.record("cpu", "", "kernel", kernel, steps, "steps", true, "reference");
        run.record("cpu", "", "application", application, steps, "steps", true, "reference");
    } else {
        reference = pns_cpu(p);
    }
    std::uint64_t tokens = 0;
    for (auto t : reference.tokens) tokens += t;
    if (tokens != static_cast<std::uint64_t>(places) * p.trajectories) run.failed("cpu", "tokens were not conserved");
    harness::DeviceMemory memory;
    const cudaStream_t s = run.stream();
    std::uint8_t* state = memory.allocate<std::uint8_t>(static_cast<std::size_t>(places) * most, "allocate the markings");
    std::uint32_t* firings = memory.allocate<std::uint32_t>(most, "allocate the firing counts");
    std::vector<std::uint8_t> h_state(static_cast<std::size_t>(places) * most);
    std::vector<std::uint32_t> h_firings(most);
    for (const auto& name : run.variants()) {
        const PnsVariant& v = pns_variants().find(name);
        for (const std::uint32_t cap : caps) {
            const std::string parameter = "cap=" + std::to_string(cap);
            const auto launches = [&] {
                for (std::uint32_t first = 0; first < p.trajectories; first += cap)
                    v.run(p.edge, p.seed, p.steps, first, std::min(cap, p.trajectories - first), state, firings, s);
            };
            const auto application = [&] {
                PnsResult r;
                for (std::uint32_t first = 0; first < p.trajectories; first += cap) {
                    const std::uint32_t count = std::min(cap, p.trajectories - first);
                    v.run(p.edge, p.seed, p.steps, first, count, state, firings, s);
                    check(cudaMemcpyAsync(h_state.data(), state, static_cast<std::size_t>(places) * count, cudaMemcpyDeviceToHost, s), "download the markings");
                    check(cudaMemcpyAsync(h_firings.data(), firings, sizeof(std::uint32_t) * count, cudaMemcpyDeviceToHost, s), "download the firings");
                    check(cudaStreamSynchronize(s), "finish a launch");
                    pns_accumulate(r, h_state.data(), h_firings.data(), count, places);
                }
                return r;
            };
            if (!(application() == reference)) {
                run.failed(name + " " + parameter, "the tokens per place or the firings differ from the CPU's");
                continue;
            }
            if (run.times("kernel"))
                run.record(name, parameter, "kernel", harness::measure(s, run.gpu(), run.monitor(), launches), steps, "steps", true, "exact");
            if (run.times("application"))
                run.record(name, parameter, "application", harness::measure_wall(s, run.gpu(), run.monitor(), [&] { (void)application(); }),
                           steps, "steps", true, "exact");
            if (run.times("transfer")) {
                const auto m = harness::measure(s, run.gpu(), run.monitor(), [&] {
                    for (std::uint32_t first = 0; first < p.trajectories; first += cap) {
                        const std::uint32_t count = std::min(cap, p.trajectories - first);
                        check(cudaMemcpyAsync(h_state.data(), state, static_cast<std::size_t>(places) * count, cudaMemcpyDeviceToHost, s), "download the markings");
                        check(cudaMemcpyAsync(h_firings.data(), firings, sizeof(std::uint32_t) * count, cudaMemcpyDeviceToHost, s), "download the firings");
                    }
                });
                run.record(name, parameter, "transfer", m, (places + 4.0) * p.trajectories, "B", true, "copies");
            }
        }
    }
    return run.finish();
}

// ---- the kernels' resources and single launches -------------------------------------------------------------

namespace {

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

}  // namespace

void print_application_names() {
    for (const auto& v : gemm_variants().entries())
        if (v.step != "library") std::printf("matmul %s\n", v.name.c_str());
    for (const auto& v : kirk_hwu::gpu::variants().entries())
        if (v.kernel) std::printf("%s %s\n", borrowed_application(v.problem).c_str(), v.name.c_str());
    for (const auto& v : elimination_variants().entries()) std::printf("elimination %s\n", v.name.c_str());
    for (const auto& v : tpacf_variants().entries()) std::printf("tpacf %s\n", v.name.c_str());
    for (const auto& v : rc5_variants().entries()) std::printf("rc5 %s\n", v.name.c_str());
    for (const auto& v : pns_variants().entries()) std::printf("pns %s\n", v.name.c_str());
    for (const auto& v : h264_variants().entries()) std::printf("h264 %s\n", v.name.c_str());
    for (const auto& v : rpes_variants().entries()) std::printf("rpes %s\n", v.name.c_str());
    for (const auto& v : fdtd_variants().entries()) std::printf("fdtd %s\n", v.name.c_str());
    for (const auto& v : lbm_variants().entries()) std::printf("lbm %s\n", v.name.c_str());
    for (const auto& v : fem_variants().entries()) std::printf("fem %s\n", v.name.c_str());
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
    const harness::Options o(args, {{"--help", harness::OptionKind::flag}, {"--variants"}, {"--size"}}, "ryoo profile-apps");
    if (o.has("--help")) {
        std::puts("ryoo profile-apps [--variants all|a,b,...] [--size small|large]\n"
                  "  exactly one launch of each named application kernel, in the order given, with no check: the first\n"
                  "  elimination step, the DR histogram of the first random set, the search of the GPU range, every\n"
                  "  trajectory in one launch, the 4x4 SAD search of the frame, the RPES kernel over every bra pair,\n"
                  "  the FDTD electric-field update (2048^2 cells large, 256^2 small), one LBM step (128^3 cells large,\n"
                  "  32^3 small), the product (n = 4096 large, 256 small), and for MRI-Q, MRI-FHD and CP\n"
                  "  one staged chunk of samples or atoms over the documents' voxels or one slice of their lattice\n"
                  "  (128^3 voxels or a 512 x 512 slice when large, 8^3 or 16 x 16 when small), so that each is one\n"
                  "  launch. The order is printed as 'launch <i>: <variant>'.");
        return 0;
    }
    std::vector<std::string> all;
    for (const auto& k : app_kernels()) all.push_back(k.variant);
    const auto names = split_names(o.text("--variants", "all"), all);
    for (const auto& n : names)
        if (std::find(all.begin(), all.end(), n) == all.end()) throw o.error("--variants", "unknown application variant '" + n + "'");
    const bool large = o.choice("--size", {"small", "large"}, "small") == "large";
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
