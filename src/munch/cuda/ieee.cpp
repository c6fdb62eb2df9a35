// munch ieee: the thesis's IEEE-754 statements (its section 6.4) checked on today's GPU: float division,
// square root, multiply-add and denormals, as four builds compute them, against the CPU.
#include <cmath>
#include <cstdio>
#include <cstdint>

#include "harness/csv.hpp"
#include "harness/options.hpp"
#include "munch/app/commands.hpp"
#include "munch/cuda/device.hpp"
#include "munch/ieee.hpp"
#include "munch/inputs.hpp"
#include "munch/ulp.hpp"

namespace munch::app {

namespace {

// Operands spread over many binades, from a fixed sequence.
gpu::IeeeInputs make_inputs(std::size_t n) {
    gpu::IeeeInputs in;
    const auto raw = small_integers(4 * n, 1 << 20, 7);
    for (std::size_t i = 0; i < n; ++i) {
        const auto scale = [](float r, int spread) { return std::ldexp(1.0f + std::fabs(r) / 2097152.0f, static_cast<int>(std::fmod(std::fabs(r), spread)) - spread / 2); };
        in.a.push_back(std::copysign(scale(raw[4 * i], 60), raw[4 * i]));
        in.b.push_back(scale(raw[4 * i + 1], 60));
        in.c.push_back(-in.a.back() * in.b.back() * (1.0f + std::ldexp(raw[4 * i + 2], -40)));  // near cancellation
        in.denormal.push_back(std::ldexp(1.0f + std::fabs(raw[4 * i + 3]) / 2097152.0f, -130));  // below 2^-126
    }
    return in;
}

struct Tally {
    std::size_t mismatches = 0;
    long long max_ulp = 0;
    void add(float got, float want) {
        const long long d = ulp_distance(got, want);
        if (d != 0) ++mismatches;
        if (d < 0 || d > max_ulp) max_ulp = d < 0 ? (1LL << 40) : d;
    }
};

}  // namespace

int command_ieee(const Args& args) {
    namespace opt = harness::option;
    auto csv_option = opt::csv("one row per build, operation and CPU reference");
    csv_option.required = true;
    harness::CommandHelp help;
    help.about = "Float division, square root, multiply-add and denormals computed by four builds of one kernel "
                 "(IEEE and fast-math flags) and compared bit for bit with the CPU.";
    const harness::Options o(args,
                             {csv_option, opt::value("--experiment", "NAME", "the experiment's name written in the CSV", "ieee"),
                              opt::value("--count", "N", "random inputs per operation, 16 to 2^26", "1048576")},
                             "munch ieee", help);
    const auto csv_path = o.require("--csv");
    const auto experiment = o.text("--experiment", "ieee");
    const auto n = static_cast<std::size_t>(o.integer("--count", 1 << 20, 16, 1 << 26));
    current_device();
    const auto in = make_inputs(n);
    harness::CsvAppender csv(csv_path, {"experiment", "build", "flags", "operation", "cpu_reference", "count", "mismatches", "max_ulp"});
    for (const auto& build : gpu::ieee_builds()) {
        const auto out = build.run(in);
        Tally div, root, fused, unfused, denormal, flushed;
        for (std::size_t i = 0; i < n; ++i) {
            div.add(out.quotient[i], in.a[i] / in.b[i]);
            root.add(out.root[i], std::sqrt(std::fabs(in.a[i])));
            fused.add(out.muladd[i], std::fma(in.a[i], in.b[i], in.c[i]));
            unfused.add(out.muladd[i], in.a[i] * in.b[i] + in.c[i]);  // the CPU build does not contract
            denormal.add(out.scaled[i], in.denormal[i] * 0.75f);
            if (out.scaled[i] == 0.0f) flushed.mismatches++;
        }
        const auto row = [&](const char* op, const char* ref, std::size_t mismatches, long long max_ulp) {
            csv.row({experiment, build.name, build.flags, op, ref, std::to_string(n), std::to_string(mismatches), std::to_string(max_ulp)});
        };
        row("division", "correctly rounded a/b", div.mismatches, div.max_ulp);
        row("sqrt", "correctly rounded sqrt", root.mismatches, root.max_ulp);
        row("multiply_add", "fused fma(a,b,c)", fused.mismatches, fused.max_ulp);
        row("multiply_add", "unfused a*b+c", unfused.mismatches, unfused.max_ulp);
        row("denormal_scale", "IEEE gradual underflow", denormal.mismatches, denormal.max_ulp);
        row("denormal_scale", "results flushed to zero", flushed.mismatches, 0);
        std::printf("%-14s division %zu/%zu differ, sqrt %zu, a*b+c vs fused %zu vs unfused %zu, denormals flushed %zu\n",
                    build.name.c_str(), div.mismatches, n, root.mismatches, fused.mismatches, unfused.mismatches, flushed.mismatches);
    }
    return 0;
}

}  // namespace munch::app
