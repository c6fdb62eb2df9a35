// kirk_hwu split: the MRI case study's "increased resolutions" (S2): when the voxels outnumber what the device
// holds (N = 1024³), divide them into subsets and reconstruct each with its own launches. Each configuration of
// subsets is one whole pass over the image: per subset, the positions uploaded with the samples, the variant's
// launches, the output copied back; one subset is the whole image in one device copy. Each configuration is
// checked against the FP64 reference at spread voxels before it is timed.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "harness/check.hpp"
#include "harness/csv.hpp"
#include "harness/device_budget_cuda.hpp"
#include "harness/measure.hpp"
#include "harness/measure_options.hpp"
#include "harness/options.hpp"
#include "harness/output_paths.hpp"
#include "kirk_hwu/app/commands.hpp"
#include "gpu_variants.hpp"
#include "kirk_hwu/reference.hpp"
#include "kirk_hwu/subsets.hpp"

namespace kirk_hwu::app {

namespace {

/// The CSV columns of `kirk_hwu split` (experiments/studies/kirk_hwu.py lists them too).
const std::vector<std::string> split_columns = harness::with_timing_columns(
    {"experiment", "variant", "edge", "voxels", "kspace_samples", "subsets", "voxels_per_subset", "repeat", "ms", "kernel_ms",
     "pairs", "pairs_per_second", "valid", "max_rel_err", "rel_l2_err", "tolerance"});

/// One pass over the image in @p ranges: per subset, the device copy of its voxels and the samples, the variant,
/// and the output copied back; returns the pass's time without building the subsets' positions on the host [ms]
/// and sets @p kernel_ms to the variant's own time (CUDA events); the values at @p check (global voxel indices,
/// sorted) go to @p at_check (real parts, then imaginary parts).
double one_pass(const gpu::Variant& v, const MriInput& samples, int edge, const std::vector<VoxelRange>& ranges,
                const std::vector<std::size_t>& check, double& kernel_ms, std::vector<double>* at_check) {
    const MriOutput out = v.problem == gpu::Problem::mri_q ? MriOutput::q : MriOutput::fhd;
    double ms = 0;
    kernel_ms = 0;
    std::vector<double> real, imaginary;
    MriInput part = samples;
    harness::Stream stream;
    for (const VoxelRange& r : ranges) {
        grid_positions(part, edge, r);
        std::vector<std::size_t> local;
        for (std::size_t p : check)
            if (p >= r.first && p < r.first + r.count) local.push_back(p - r.first);
        const double t0 = harness::steady_seconds();
        gpu::MriDevice device(part, out, v.fp64);
        harness::Event e0, e1;
        e0.record(stream.get());
        v.mri(device, {}, stream.get());
        e1.record(stream.get());
        harness::check(cudaStreamSynchronize(stream.get()), "run the variant over a subset");
        const std::vector<double> got = device.download(local, v.fp64);  // copies the whole subset's output back
        ms += (harness::steady_seconds() - t0) * 1e3;
        kernel_ms += e1.since(e0);
        if (at_check) {
            real.insert(real.end(), got.begin(), got.begin() + static_cast<std::ptrdiff_t>(local.size()));
            imaginary.insert(imaginary.end(), got.begin() + static_cast<std::ptrdiff_t>(local.size()), got.end());
        }
    }
    if (at_check) {
        *at_check = real;
        at_check->insert(at_check->end(), imaginary.begin(), imaginary.end());
    }
    return ms;
}

}  // namespace

int command_split(const std::vector<std::string>& args) {
    namespace opt = harness::option;
    harness::MeasureOptions defaults;
    defaults.stop.min_samples = 3;
    defaults.stop.max_samples = 5;
    defaults.stop.time_limit_s = 30.0;
    std::vector<harness::OptionSpec> specs = {
        opt::value("--variant", "NAME", "an MRI variant (kirk_hwu variants lists them)", "fhd-constaos-regs-sfu-u4-f32"),
        opt::value("--edge", "N", "the image's edge in voxels (N³ voxels), 2 to 1024", "1024"),
        opt::value("--samples", "N", "k-space samples of the 128³ input's range", "2048"),
        opt::value("--subsets", "LIST", "comma-separated counts of subsets; 1 is the whole image at once", "1,8,64"),
        opt::value("--check-points", "N", "voxels compared with the FP64 reference before timing", "1024"),
        opt::value("--experiment", "NAME", "the experiment's name written in the CSV", "split"),
        opt::required("--csv", "FILE", "append one row per sample (- for standard output)")};
    for (auto& s : harness::measure_option_specs(defaults)) specs.push_back(std::move(s));
    harness::CommandHelp help;
    help.about =
        "The documents' increased resolutions: an image of --edge³ voxels reconstructed in subsets of voxels, each "
        "with its own device copy (positions and samples uploaded, the variant's launches, the output copied back), "
        "for each count of --subsets. Each configuration is checked against the FP64 reference within the variant's "
        "tolerance before it is timed, then whole passes are timed on the host's clock with the variant's own launch "
        "time beside (CUDA events). At --edge 1024 the whole image needs about 21 GB of device memory and 13 GB of "
        "host memory; the largest subset's plan is checked against the device's free memory first.";
    const harness::Options o(args, specs, "kirk_hwu split", help);
    const harness::MeasureOptions measure = harness::parse_measure_options(o, defaults);
    if (measure.cold) throw o.error("--cold", "each pass makes its own device copy: there is no warm input to flush");
    if (harness::print_criterion_if_asked(o, "kirk_hwu split", measure,
                                          "one whole pass over the image's subsets (copies and launches), host steady clock"))
        return 0;
    std::vector<std::string> mri_names;
    for (const auto& v : gpu::variants().entries())
        if (v.problem != gpu::Problem::coulomb) mri_names.push_back(v.name);
    const gpu::Variant& v = gpu::variants().find(o.choice("--variant", mri_names, "fhd-constaos-regs-sfu-u4-f32"));
    const int edge = static_cast<int>(o.integer("--edge", 1024, 2, 1024));
    const int samples = static_cast<int>(o.integer("--samples", 2048, 1, 1 << 20));
    const std::size_t voxels = static_cast<std::size_t>(edge) * edge * edge;
    std::vector<std::size_t> subsets;
    {
        const std::string text = o.text("--subsets", "1,8,64");
        std::size_t begin = 0;
        while (begin <= text.size()) {
            const std::size_t end = std::min(text.find(',', begin), text.size());
            const std::string word = text.substr(begin, end - begin);
            std::size_t used = 0;
            long long s = 0;
            try {
                s = std::stoll(word, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != word.size() || word.empty() || s < 1 || static_cast<std::size_t>(s) > voxels)
                throw o.error("--subsets", "a comma-separated list of counts between 1 and the voxel count, got '" + word + "'");
            subsets.push_back(static_cast<std::size_t>(s));
            begin = end + 1;
        }
    }
    const auto check_count = static_cast<std::size_t>(o.integer("--check-points", 1024, 1, 1 << 20));
    const std::string csv_path = o.require("--csv");
    harness::check_outputs("kirk_hwu split", {}, {{"--csv", csv_path}});
    const std::string experiment = o.text("--experiment", "split");
    const double pairs = static_cast<double>(voxels) * samples;
    std::fprintf(stderr, "kirk_hwu split: %d³ voxels x %d samples = %.3g pairs per pass, %zu configurations, at least %d "
                         "passes each (the check included)\n",
                 edge, samples, pairs, subsets.size(), measure.stop.min_samples + 1);
    // The largest subset's device copy must fit before anything is built.
    const std::size_t largest = voxel_subsets(voxels, *std::min_element(subsets.begin(), subsets.end())).front().count;
    harness::require_device_memory(gpu::mri_device_plan(largest, static_cast<std::size_t>(samples),
                                                        v.problem == gpu::Problem::mri_q ? MriOutput::q : MriOutput::fhd, v.fp64),
                                   -1, "choose more --subsets or a smaller --edge, or free the device");

    // The samples, with the k-space range of the documents' 128³ input (|k| < 64 cycles per field of view, the range
    // the variants' tolerances are set for), and the FP64 reference at spread voxels of the --edge³ grid, from their
    // positions alone; each subset rebuilds its own positions.
    MriInput in = make_mri_input(MriShape{128, samples}, 20091);
    const std::vector<std::size_t> check = spread_subset(voxels, check_count);
    MriInput at = in;
    at.x.clear(), at.y.clear(), at.z.clear();
    MriInput one = in;
    for (std::size_t p : check) {
        grid_positions(one, edge, {p, 1});
        at.x.push_back(one.x[0]), at.y.push_back(one.y[0]), at.z.push_back(one.z[0]);
    }
    const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const MriOutput out = v.problem == gpu::Problem::mri_q ? MriOutput::q : MriOutput::fhd;
    const std::vector<double> reference = mri_reference(at, out, spread_subset(at.voxels(), at.voxels()), threads);

    harness::CsvAppender csv(csv_path, split_columns);
    int invalid = 0;
    for (const std::size_t s : subsets) {
        const std::vector<VoxelRange> ranges = voxel_subsets(voxels, s);
        double kernel_ms = 0;
        std::vector<double> got;
        one_pass(v, in, edge, ranges, check, kernel_ms, &got);
        const ErrorStats e = compare(reference, got);
        const bool valid = e.rel_l2 <= v.tolerance && e.max_rel <= v.tolerance;
        invalid += valid ? 0 : 1;
        std::vector<double> kernels;
        const harness::Measurement m = harness::measure_host_samples(measure, [&] {
            double k = 0;
            const double ms = one_pass(v, in, edge, ranges, check, k, nullptr);
            kernels.push_back(k);
            return ms;
        });
        const auto ms = m.ms();
        for (std::size_t k = 0; k < ms.size(); ++k)
            csv.row(harness::with_timing_values(
                {experiment, v.name, std::to_string(edge), std::to_string(voxels), std::to_string(samples), std::to_string(s),
                 std::to_string(ranges.front().count), std::to_string(k), harness::csv_number(ms[k]),
                 harness::csv_number(kernels.at(static_cast<std::size_t>(m.samples[k].attempt))), harness::csv_number(pairs),
                 harness::csv_number(pairs / (ms[k] * 1e-3)), valid ? "true" : "false", harness::csv_number(e.max_rel),
                 harness::csv_number(e.rel_l2), harness::csv_number(v.tolerance)},
                m, k));
        std::printf("%s: %zu subsets of %zu voxels: %.4g ms per pass (median of %zu), rel L2 %.3g%s\n", v.name.c_str(), s,
                    ranges.front().count, m.summary().median, ms.size(), e.rel_l2, valid ? "" : "  OUTSIDE THE TOLERANCE");
    }
    return invalid ? 1 : 0;
}

}  // namespace kirk_hwu::app
