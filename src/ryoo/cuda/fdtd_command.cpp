// `ryoo fdtd`: the two-dimensional FDTD simulation of the paper's suite. The application advances the
// fields step after step and, after every step, probes the field energy on the host (the simulator's output),
// so that only the field updates run on the GPU and the host's share bounds the application's speed-up.
// Every GPU variant's fields and energy series must equal the CPU's bit for bit before it is timed.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "harness/check.hpp"
#include "harness/device_memory.hpp"
#include "harness/host_memory.hpp"
#include "ryoo/app/commands.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/cpu/fdtd.hpp"
#include "ryoo/cuda/app_run.hpp"

namespace ryoo::app {
namespace {

using harness::check;

/// Bytes one cell moves per step in the three-kernel step: Ey and Ex each read their field, the
/// coefficient and Hz and write their field (4 floats each); Hz reads itself, its coefficient, Ex and Ey and
/// writes itself (5 floats). The rate of every variant is this nominal count over its time.
constexpr double fdtd_bytes_per_cell = 13 * sizeof(float);

/// Cells at which two field arrays differ, and the largest absolute difference.
std::string field_difference(const std::vector<float>& a, const std::vector<float>& b, const char* name) {
    std::size_t differ = 0;
    double largest = 0;
    for (std::size_t c = 0; c < a.size(); ++c)
        if (std::memcmp(&a[c], &b[c], sizeof(float)) != 0) {
            ++differ;
            largest = std::fmax(largest, std::fabs(static_cast<double>(a[c]) - b[c]));
        }
    return differ ? std::string(name) + " differs in " + std::to_string(differ) + " cells (largest " + std::to_string(largest) + "); " : "";
}

}  // namespace

int command_fdtd(const Args& args) {
    AppRun run(args, "ryoo fdtd", {{"--nx"}, {"--ny"}, {"--steps"}});
    if (run.help()) {
        run.print_help("ryoo fdtd [--size small|large] [--nx N] [--ny N] [--steps T] [shared options]\n"
                       "  2-D FDTD (TE mode, Yee grid) in a medium given per cell: vacuum with a dielectric block and a\n"
                       "  point source (small: 256 x 256 cells; large: 2048 x 2048, five float arrays of 16 MiB; 100 steps\n"
                       "  both). One CPU thread, then each GPU variant, whose fields after the steps and energy after\n"
                       "  every step must equal the CPU's bit for bit before it is timed. Parts: kernel (the field\n"
                       "  updates of every step, the source computed on the host), application (upload of the medium,\n"
                       "  the steps, after each the fields downloaded and their energy summed on the host), transfer\n"
                       "  (the application's copies). Rates in GB/s at 52 bytes per cell and step.");
        return 0;
    }
    const std::string size = run.options().choice("--size", {"small", "large"}, "small");
    const int nx = static_cast<int>(run.options().integer("--nx", size == "small" ? 256 : 2048, 4, 32768));
    const int ny = static_cast<int>(run.options().integer("--ny", size == "small" ? 256 : 2048, 4, 32768));
    const int steps = static_cast<int>(run.options().integer("--steps", 100, 1, 1000000));
    run.start(fdtd_variants().name_list());
    const double cells = static_cast<double>(nx) * ny;
    harness::check_host_bytes(run.options(), "--nx", 4.0 * cells * 13, "the medium, the reference and downloaded fields");
    run.open("fdtd");
    const FdtdInput in = synthetic_medium(nx, ny);
    const double work = fdtd_bytes_per_cell * cells * steps;
    const std::string parameter = "steps=" + std::to_string(steps);
    FdtdFields reference;
    std::vector<double> energies;
    if (run.cpu_samples() > 0) {
        const auto kernel = time_cpu(run, [&] {
            reference = zero_fields(in);
            fdtd_run_cpu(in, reference, steps, nullptr);
        });
        const auto application = time_cpu(run, [&] {
            FdtdFields f = zero_fields(in);
            energies.clear();
            fdtd_run_cpu(in, f, steps, &energies);
        });
        run.record("cpu", parameter, "kernel", kernel, work, "B", true, "reference");
        run.record("cpu", parameter, "application", application, work, "B", true, "reference");
    } else {
        reference = zero_fields(in);
        fdtd_run_cpu(in, reference, steps, &energies);
    }
    for (double e : energies)
        if (!std::isfinite(e)) {
            run.failed("cpu", "the field energy is not finite");
            break;
        }
    const std::size_t n = in.cells(), bytes = n * sizeof(float);
    harness::DeviceMemory memory;
    const cudaStream_t s = run.stream();
    FdtdDevice d;
    d.nx = nx;
    d.ny = ny;
    d.source_index = in.source_index();
    d.ex = memory.allocate<float>(n, "allocate Ex");
    d.ey = memory.allocate<float>(n, "allocate Ey");
    d.hz = memory.allocate<float>(n, "allocate Hz");
    float* ce = memory.allocate<float>(n, "allocate the E coefficients");
    float* ch = memory.allocate<float>(n, "allocate the H coefficients");
    d.ce = ce;
    d.ch = ch;
    FdtdFields got = zero_fields(in);
    std::vector<double> got_energies;
    const auto upload_medium = [&] {
        check(cudaMemcpyAsync(ce, in.ce.data(), bytes, cudaMemcpyHostToDevice, s), "upload the E coefficients");
        check(cudaMemcpyAsync(ch, in.ch.data(), bytes, cudaMemcpyHostToDevice, s), "upload the H coefficients");
    };
    const auto reset = [&] {
        check(cudaMemsetAsync(d.ex, 0, bytes, s), "clear Ex");
        check(cudaMemsetAsync(d.ey, 0, bytes, s), "clear Ey");
        check(cudaMemsetAsync(d.hz, 0, bytes, s), "clear Hz");
    };
    const auto download = [&] {
        check(cudaMemcpyAsync(got.ex.data(), d.ex, bytes, cudaMemcpyDeviceToHost, s), "download Ex");
        check(cudaMemcpyAsync(got.ey.data(), d.ey, bytes, cudaMemcpyDeviceToHost, s), "download Ey");
        check(cudaMemcpyAsync(got.hz.data(), d.hz, bytes, cudaMemcpyDeviceToHost, s), "download Hz");
        check(cudaStreamSynchronize(s), "wait for the fields");
    };
    upload_medium();
    for (const auto& name : run.variants()) {
        const FdtdVariant& v = fdtd_variants().find(name);
        const auto updates = [&] { for (int t = 0; t < steps; ++t) v.step(d, fdtd_source(in, t), s); };
        // The whole application: medium up, then per step the updates, the fields down and the host's probe.
        const auto application = [&] {
            upload_medium();
            reset();
            got_energies.clear();
            for (int t = 0; t < steps; ++t) {
                v.step(d, fdtd_source(in, t), s);
                download();
                got_energies.push_back(fdtd_energy(in, got));
            }
        };
        application();
        const std::string diff = field_difference(got.ex, reference.ex, "Ex") + field_difference(got.ey, reference.ey, "Ey") +
                                 field_difference(got.hz, reference.hz, "Hz");
        if (!diff.empty()) {
            run.failed(name, diff + "the fields differ from the CPU's after " + std::to_string(steps) + " steps");
            continue;
        }
        if (got_energies.size() != energies.size() ||
            std::memcmp(got_energies.data(), energies.data(), energies.size() * sizeof(double)) != 0) {
            run.failed(name, "the energy series differs from the CPU's");
            continue;
        }
        if (run.times("kernel")) {
            const auto m = harness::measure_self_timed(s, run.gpu(), run.monitor(), [&] {
                reset();
                return event_ms(s, updates);
            });
            run.record(name, parameter, "kernel", m, work, "B", true, "bitwise");
        }
        if (run.times("application"))
            run.record(name, parameter, "application", harness::measure_wall(s, run.gpu(), run.monitor(), application), work, "B", true,
                       "bitwise");
        if (run.times("transfer")) {
            const auto m = harness::measure(s, run.gpu(), run.monitor(), [&] {
                upload_medium();
                for (int t = 0; t < steps; ++t) {
                    check(cudaMemcpyAsync(got.ex.data(), d.ex, bytes, cudaMemcpyDeviceToHost, s), "download Ex");
                    check(cudaMemcpyAsync(got.ey.data(), d.ey, bytes, cudaMemcpyDeviceToHost, s), "download Ey");
                    check(cudaMemcpyAsync(got.hz.data(), d.hz, bytes, cudaMemcpyDeviceToHost, s), "download Hz");
                }
            });
            run.record(name, parameter, "transfer", m, (2.0 + 3.0 * steps) * bytes, "B", true, "copies");
        }
    }
    return run.finish();
}

}  // namespace ryoo::app
