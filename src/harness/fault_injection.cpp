#include "harness/fault_injection.hpp"

#include <cstdlib>

namespace harness {

std::optional<long long> fail_after_evaluations_setting() {
    const char* value = std::getenv(fail_after_evaluations_variable);
    if (!value || !*value) return std::nullopt;
    const std::string text(value);
    if (text.size() > 16 || text.find_first_not_of("0123456789") != std::string::npos)
        throw std::invalid_argument(std::string(fail_after_evaluations_variable) + "='" + text +
                                    "': expected a whole number of evaluations (0 or more)");
    const long long n = std::stoll(text);
    if (n > 1000000000000000LL)
        throw std::invalid_argument(std::string(fail_after_evaluations_variable) + "='" + text + "': at most 10^15");
    return n;
}

EvaluationFaults& evaluation_faults() {
    static EvaluationFaults faults(fail_after_evaluations_setting());
    return faults;
}

}  // namespace harness
