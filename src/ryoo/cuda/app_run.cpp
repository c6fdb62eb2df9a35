// The one driver of the application commands (app_run.hpp): the order every application runs in, written once.
#include "ryoo/cuda/app_run.hpp"

namespace ryoo::app {
namespace {

/// The CPU baseline: both parts timed under the CPU rule and recorded, or the result computed once.
void run_cpu(AppRun& run, const AppCommand& what, const CpuBaseline& cpu) {
    if (run.cpu_samples() == 0) {
        if (cpu.untimed) cpu.untimed();
        return;
    }
    const auto kernel = time_cpu(run, cpu.kernel);
    if (cpu.after_kernel) cpu.after_kernel();
    const auto application = time_cpu(run, cpu.application);
    const CpuVerdict v = cpu.verdict ? cpu.verdict() : CpuVerdict{};
    run.record("cpu", cpu.parameter, "kernel", kernel, cpu.work, what.unit, v.kernel_valid, v.checked);
    run.record("cpu", cpu.parameter, "application", application, cpu.work, what.unit, v.application_valid, v.checked);
}

/// One checked variant's parts, each through the measurement engine.
void time_gpu(AppRun& run, const AppCommand& what, const std::string& variant, const std::string& parameter, const GpuParts& p) {
    const cudaStream_t s = run.stream();
    if (run.times("kernel")) {
        const auto m = p.kernel_reset ? harness::measure_self_timed(s, run.gpu(), run.monitor(),
                                                                    [&] {
                                                                        p.kernel_reset();
                                                                        return event_ms(s, p.kernel);
                                                                    })
                                      : harness::measure(s, run.gpu(), run.monitor(), p.kernel);
        run.record(variant, parameter, "kernel", m, p.work, what.unit, true, p.checked);
    }
    if (run.times("application")) {
        const auto m = harness::measure_wall(s, run.gpu(), run.monitor(), p.application);
        run.record(variant, parameter, "application", m, p.work, what.unit, !p.application_valid || p.application_valid(), p.checked);
    }
    if (run.times("transfer"))
        run.record(variant, parameter, "transfer", harness::measure(s, run.gpu(), run.monitor(), p.transfer), p.transfer_bytes, "B",
                   true, "copies");
}

}  // namespace

int run_application(const Args& args, const AppCommand& what, const MakeApplication& make) {
    AppRun run(args, what.command, what.options, what.about);
    const std::unique_ptr<Application> app = make(run);
    if (!run.start(app->variant_names())) return 0;  // the criterion was printed
    app->check_before_work();
    run.open(what.application);
    app->prepare();
    run_cpu(run, what, app->cpu());
    app->check_reference();
    app->upload();
    const std::vector<std::string> parameters = app->parameters();
    for (const auto& variant : run.variants())
        for (const auto& parameter : parameters) {
            const GpuCheck c = app->check_variant(variant, parameter);
            if (!c.failure.empty()) {
                run.failed(parameter.empty() ? variant : variant + " " + parameter, c.failure);
                continue;
            }
            time_gpu(run, what, variant, parameter, c.parts);
        }
    return run.finish();
}

}  // namespace ryoo::app
