#include "harness/device_budget.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace harness {
namespace {

constexpr std::size_t most = std::numeric_limits<std::size_t>::max();

std::size_t add_saturating(std::size_t a, std::size_t b) { return a > most - b ? most : a + b; }

std::size_t multiply_saturating(std::size_t a, std::size_t b) {
    if (a == 0 || b == 0) return 0;
    return a > most / b ? most : a * b;
}

std::size_t round_up(std::size_t bytes, std::size_t granularity) {
    const std::size_t rest = bytes % granularity;
    return rest == 0 ? bytes : add_saturating(bytes, granularity - rest);
}

}  // namespace

std::size_t rounded_allocation(std::size_t requested) {
    const std::size_t bytes = std::max<std::size_t>(requested, 1);
    return round_up(bytes, bytes >= large_allocation_threshold ? large_allocation_granularity
                                                               : small_allocation_granularity);
}

std::size_t DevicePlan::Phase::requested() const {
    std::size_t sum = 0;
    for (const auto& i : items) sum = add_saturating(sum, i.requested);
    return sum;
}

std::size_t DevicePlan::Phase::rounded() const {
    std::size_t sum = 0;
    for (const auto& i : items) sum = add_saturating(sum, i.rounded);
    return sum;
}

DevicePlan::DevicePlan(std::string purpose) : purpose_(std::move(purpose)), phases_(1) {}

DevicePlan& DevicePlan::add(std::string what, std::size_t count, std::size_t element_bytes, std::size_t copies) {
    if (copies == 0) return *this;
    Item i;
    i.what = std::move(what);
    i.count = count;
    i.element_bytes = element_bytes;
    i.copies = copies;
    const std::size_t one = multiply_saturating(std::max<std::size_t>(count, 1), element_bytes);
    i.requested = multiply_saturating(one, copies);
    i.rounded = multiply_saturating(rounded_allocation(one), copies);
    phases_.back().items.push_back(std::move(i));
    return *this;
}

DevicePlan& DevicePlan::include(const DevicePlan& other, std::size_t copies, const std::string& prefix) {
    const Phase p = other.peak();  // a copy: @p other may be this plan
    for (const auto& i : p.items) add(prefix + i.what, i.count, i.element_bytes, multiply_saturating(i.copies, copies));
    return *this;
}

DevicePlan& DevicePlan::then(std::string name) {
    phases_.push_back(Phase{std::move(name), {}});
    return *this;
}

DevicePlan& DevicePlan::phase(std::string name) {
    phases_.back().name = std::move(name);
    return *this;
}

const DevicePlan::Phase& DevicePlan::peak() const {
    const Phase* best = &phases_.front();
    for (const auto& p : phases_)
        if (p.rounded() > best->rounded()) best = &p;
    return *best;
}

std::size_t DevicePlan::peak_bytes() const { return peak().rounded(); }

std::size_t DevicePlan::requested_bytes() const {
    std::size_t sum = 0;
    for (const auto& p : phases_) sum = add_saturating(sum, p.requested());
    return sum;
}

std::size_t DevicePlan::needed_bytes() const { return add_saturating(peak_bytes(), device_reserve_bytes); }

std::string describe_bytes(std::size_t bytes) {
    static const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 6) value /= 1024.0, ++unit;
    char buf[96];
    if (unit == 0) std::snprintf(buf, sizeof buf, "%zu bytes", bytes);
    else std::snprintf(buf, sizeof buf, "%.3g %s (%zu bytes)", value, units[unit], bytes);
    return buf;
}

std::optional<std::size_t> parse_byte_size(std::string_view text) {
    const auto space = [](char c) { return c == ' ' || c == '\t'; };
    while (!text.empty() && space(text.front())) text.remove_prefix(1);
    while (!text.empty() && space(text.back())) text.remove_suffix(1);
    std::size_t digits = 0;
    bool dot = false, any = false;
    while (digits < text.size()) {
        const char c = text[digits];
        if (c >= '0' && c <= '9') any = true;
        else if (c == '.' && !dot) dot = true;
        else break;
        ++digits;
    }
    if (!any || digits > 40) return std::nullopt;
    const std::string number(text.substr(0, digits));
    std::string_view unit = text.substr(digits);
    while (!unit.empty() && space(unit.front())) unit.remove_prefix(1);
    static const struct {
        const char* name;
        double factor;
    } units[] = {{"", 1},       {"B", 1},          {"kB", 1e3},          {"MB", 1e6},          {"GB", 1e9},
                 {"TB", 1e12},  {"KiB", 1024.0},   {"MiB", 1048576.0},   {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
                 {"K", 1024.0}, {"M", 1048576.0},  {"G", 1073741824.0},  {"T", 1099511627776.0}};
    for (const auto& u : units) {
        if (unit != u.name) continue;
        const double bytes = std::strtod(number.c_str(), nullptr) * u.factor;
        // Whole bytes only, and below 2^63 (the double's integers are exact well past any device's memory).
        if (!std::isfinite(bytes) || bytes != std::floor(bytes) || bytes >= 9.2e18) return std::nullopt;
        return static_cast<std::size_t>(bytes);
    }
    return std::nullopt;
}

std::optional<std::size_t> device_memory_limit() {
    const char* value = std::getenv(device_memory_limit_variable);
    if (!value || !*value) return std::nullopt;
    const auto bytes = parse_byte_size(value);
    if (!bytes)
        throw std::invalid_argument(std::string(device_memory_limit_variable) + "='" + value +
                                    "': expected a size such as 64MiB, 1.5GiB, 500MB or 1000000 (bytes)");
    return bytes;
}

void check_device_budget(const DevicePlan& plan, const DeviceMemoryState& state, const std::string& advice) {
    const std::size_t needed = plan.needed_bytes();
    const std::size_t free = state.believed_free();
    if (needed <= free) return;
    const DevicePlan::Phase& peak = plan.peak();
    std::string m = (plan.purpose().empty() ? std::string("the work") : plan.purpose()) + " needs " +
                    describe_bytes(needed) + " of device memory (" + describe_bytes(peak.rounded()) + " of arrays";
    if (plan.phases().size() > 1 && !peak.name.empty()) m += " while " + peak.name;
    m += ", plus " + describe_bytes(device_reserve_bytes) + " kept for the CUDA runtime and libraries), but device " +
         std::to_string(state.device) + (state.name.empty() ? "" : " (" + state.name + ")") + " has " +
         describe_bytes(free) + " free of " + describe_bytes(state.total);
    if (state.limit && *state.limit < state.free)
        m += " (free memory capped by the test hook " + std::string(device_memory_limit_variable) + "; the device reports " +
             describe_bytes(state.free) + " free)";
    else if (state.total > state.free)
        m += " (" + describe_bytes(state.total - state.free) + " in use by this and other processes)";
    // The largest items of the peak phase: what to make smaller.
    std::vector<const DevicePlan::Item*> items;
    for (const auto& i : peak.items) items.push_back(&i);
    std::stable_sort(items.begin(), items.end(), [](const auto* a, const auto* b) { return a->rounded > b->rounded; });
    if (!items.empty()) {
        m += "; the largest parts:";
        for (std::size_t k = 0; k < items.size() && k < 3; ++k) {
            const auto& i = *items[k];
            m += std::string(k ? "," : "") + " " + i.what + " " + describe_bytes(i.requested);
            if (i.copies > 1) m += " in " + std::to_string(i.copies) + " copies";
        }
    }
    if (!advice.empty()) m += "; " + advice;
    throw DeviceMemoryShortage(m, needed, free);
}

}  // namespace harness
