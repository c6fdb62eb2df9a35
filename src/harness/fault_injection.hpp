/// @file fault_injection.hpp
/// @brief A test hook that makes an evaluator fail as a device fault would, after a given number of
/// evaluations: compiled into every build, inert unless its environment variable is set. It lets a test
/// check what a CUDA error in the middle of a fit leaves behind (a whole checkpoint that resumes to the
/// uninterrupted result) without a broken GPU, and the CPU evaluator takes the same hook, so that the
/// checkpoint half of that test also runs without a GPU.
#pragma once

#include <atomic>
#include <optional>
#include <stdexcept>
#include <string>

namespace harness {

/// Where this environment variable holds a whole number N >= 0, the evaluators of `mwsep fit` complete N
/// evaluations and fail at the next one: the GPU evaluator through its CUDA error check (as a failed kernel
/// launch: cudaErrorLaunchFailure), the CPU evaluator with InjectedFault.
inline constexpr const char* fail_after_evaluations_variable = "GPU_STUDIES_FAIL_AFTER_EVALUATIONS";

/// The failure the CPU evaluator raises for the hook (the GPU evaluator raises a CUDA error instead).
class InjectedFault : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Counts evaluations and says when one is to fail. Thread-safe: evaluators count from several threads.
class EvaluationFaults {
public:
    /// Fails every evaluation after the first @p allowed; never, without a number.
    explicit EvaluationFaults(std::optional<long long> allowed) : allowed_(allowed) {}
    /// Counts one evaluation; true when it is beyond the allowed number (it is to fail).
    bool fail_next() {
        if (!allowed_) return false;
        return count_.fetch_add(1) + 1 > *allowed_;
    }
    /// The number of evaluations that succeed (none: the hook is off).
    std::optional<long long> allowed() const { return allowed_; }
    /// "GPU_STUDIES_FAIL_AFTER_EVALUATIONS=N", for the failure's message.
    std::string setting() const {
        return std::string(fail_after_evaluations_variable) + "=" + (allowed_ ? std::to_string(*allowed_) : "");
    }

private:
    std::optional<long long> allowed_;
    std::atomic<long long> count_{0};
};

/// The hook's number from the environment: nothing when unset or empty; std::invalid_argument naming the
/// variable when it is not a whole number from 0 to 10^15.
std::optional<long long> fail_after_evaluations_setting();

/// The process's counter, made from the environment on first use (std::invalid_argument as above).
EvaluationFaults& evaluation_faults();

}  // namespace harness
