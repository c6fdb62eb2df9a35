// The CPU evaluator: the fast integrator and likelihood, one candidate per thread.
#include <cmath>
#include <exception>
#include <limits>

#include "harness/fault_injection.hpp"
#include "mwsep/cpu/compressed.hpp"
#include "mwsep/cpu/integrators.hpp"
#include "mwsep/cpu/thread_pool.hpp"
#include "mwsep/fit/candidate_setup.hpp"
#include "mwsep/fit/evaluator.hpp"
#include "mwsep/fit/space.hpp"
#include "mwsep/likelihood/likelihood.hpp"
#include "mwsep/model/build_model.hpp"

namespace mwsep::fit {
namespace {

class CpuEvaluator : public BatchEvaluator {
public:
    CpuEvaluator(const FitData& data, int threads)
        : data_(data), threads_(cpu::resolve_threads(threads)), faults_(harness::evaluation_faults()) {
        if (data_.integral_cache && !data_.compressed) cache_ = std::make_unique<IntegralCache>();
    }

    std::vector<double> evaluate(const Batch& batch) override {
        std::vector<double> out(batch.size());
        // One thread per candidate; a lone candidate gets every thread. Neither choice changes a value.
        const int inner = batch.size() == 1 ? threads_ : 1;
        cpu::parallel_for(batch.size(), batch.size() == 1 ? 1 : threads_, [&](std::size_t i) {
            // The test hook (harness/fault_injection.hpp): past its number of evaluations, the evaluation fails
            // as a device fault makes the GPU evaluator's fail: the fit stops.
            if (faults_.fail_next())
                throw harness::InjectedFault("an evaluation failed: a failure injected by the test hook " +
                                             faults_.setting() + " (it stands for a device fault)");
            out[i] = cpu_likelihood(data_, batch[i], inner, cache_.get());
        });
        return out;
    }

    std::string description() const override {
        return "CPU (" + std::to_string(threads_) + " threads" + (data_.compressed ? ", compressed quadrature)" : ")");
    }

    std::optional<IntegralWork> integral_work() const override {
        if (!cache_) return std::nullopt;
        return cache_->work();
    }

private:
    const FitData& data_;
    int threads_;
    harness::EvaluationFaults& faults_;     // the test hook's counter (inert unless its variable is set)
    std::unique_ptr<IntegralCache> cache_;  // none: every candidate integrated whole
};

}  // namespace

double cpu_likelihood(const FitData& data, const std::vector<double>& x, int threads) {
    return cpu_likelihood(data, x, threads, nullptr);
}

double cpu_likelihood(const FitData& data, const std::vector<double>& x, int threads, IntegralCache* cache) {
    try {
        const auto setup = geometry::make_setup(model::build_model(with_parameters(data.work_unit, x), data.r_binning));
        // A model with fewer streams than the candidate (the cache's partial launch) takes the candidate's
        // tables with its own parameters.
        const auto integrate = [&](const model::Model& m) {
            if (m.streams.size() == setup.streams.size()) return cpu::integrate_fast(setup, threads);
            auto part = setup;
            set_parameters(part, m);
            return cpu::integrate_fast(part, threads);
        };
        const auto integrals = data.compressed ? cpu::integrate_compressed(setup, threads)
                               : cache         ? cache->integrals(setup.model, integrate)
                                               : cpu::integrate_fast(setup, threads);
        likelihood::check_integrals(integrals);
        const double l = cpu::likelihood_fast(setup, data.stars, integrals, threads).likelihood;
        return std::isfinite(l) ? l : std::numeric_limits<double>::quiet_NaN();
    } catch (const IntegralCacheMismatch&) {
        throw;  // not the candidate's fault: the fit must stop
    } catch (const std::exception&) {
        // A candidate the model rejects (a width below its limit, an integral that is not positive) has
        // no likelihood; the optimizer ranks it last.
        return std::numeric_limits<double>::quiet_NaN();
    }
}

std::string why_not_finite(const FitData& data, const std::vector<double>& x) {
    try {
        const auto setup = geometry::make_setup(model::build_model(with_parameters(data.work_unit, x), data.r_binning));
        const auto integrals = cpu::integrate_fast(setup, 0);
        likelihood::check_integrals(integrals);
        const double l = cpu::likelihood_fast(setup, data.stars, integrals, 0).likelihood;
        if (!std::isfinite(l)) return "the likelihood is " + std::to_string(l);
        return "the CPU finds the finite likelihood " + std::to_string(l) + " here; the evaluator used does not";
    } catch (const std::exception& e) {
        return e.what();
    }
}

std::unique_ptr<BatchEvaluator> make_cpu_evaluator(const FitData& data, int threads) {
    return std::make_unique<CpuEvaluator>(data, threads);
}

}  // namespace mwsep::fit
