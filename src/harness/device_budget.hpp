/// @file device_budget.hpp
/// @brief The device memory a command will allocate, planned from its inputs before any allocation, and
/// the check that refuses the command with the numbers (needed, free, total, the device) when the plan does
/// not fit. Plain C++ (no CUDA): the arithmetic and the message are tested on any machine; the query of the
/// device (cudaMemGetInfo) is in device_budget_cuda.hpp.
///
/// Every GPU command of the four programs builds a DevicePlan item by item, mirroring the allocations its
/// code makes (the same counts and element sizes), and calls require_device_memory() before the first of
/// them and before any long work. A command that allocates in steps (a fit's partial integrals, a bench's
/// variants one after another) puts every step into its plan first: items that live together add up, and
/// phases whose memory is freed before the next phase allocates count by the largest.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace harness {

/// The test hook: where this environment variable holds a size (`64MiB`, `1.5GiB`, `500MB`, `1000000`), the
/// check believes the device has at most that much free memory. Nothing is allocated or limited by it; it
/// lets a test on a GPU host see the refusal of inputs that would fit the real device.
inline constexpr const char* device_memory_limit_variable = "GPU_STUDIES_DEVICE_MEMORY_LIMIT";

/// An allocation of at least this size is rounded up to whole large pages (below).
inline constexpr std::size_t large_allocation_threshold = std::size_t{1} << 20;
/// The page size of the device allocator's large allocations (2 MiB on every GPU the project targets).
inline constexpr std::size_t large_allocation_granularity = std::size_t{2} << 20;
/// The granularity of small allocations (cudaMalloc aligns every allocation to at least 256 bytes; 512
/// leaves room for the allocator's own rounding).
inline constexpr std::size_t small_allocation_granularity = 512;
/// Kept free beyond the plan: what the runtime and the libraries take on their own when a command runs
/// (the local memory of a kernel's threads at launch, library handles and workspaces, the allocator's
/// chunks of small allocations). A plan that fits only without it is refused.
inline constexpr std::size_t device_reserve_bytes = std::size_t{64} << 20;

/// The bytes one allocation of @p requested bytes takes on the device as the plan counts it: at least one
/// byte (every allocation of the project takes at least one element), rounded up to the granularity above.
std::size_t rounded_allocation(std::size_t requested);

/// What a command will allocate on one device: named items, in phases. Items of one phase live at the
/// same time; a phase's memory is freed before the next phase's is allocated, so the plan needs the
/// largest phase. Sizes saturate at SIZE_MAX instead of wrapping (a plan that large is refused anyway).
class DevicePlan {
public:
    /// One allocation (or @p copies equal ones).
    struct Item {
        std::string what;               ///< what it holds, e.g. "per-cell results"
        std::size_t count = 0;          ///< elements (0 counts as 1: nothing is allocated empty)
        std::size_t element_bytes = 0;  ///< bytes per element
        std::size_t copies = 1;         ///< equal allocations of this item
        std::size_t requested = 0;      ///< bytes asked for: copies x max(count, 1) x element_bytes
        std::size_t rounded = 0;        ///< bytes counted: copies x rounded_allocation(one copy)
    };
    /// Items that live at the same time.
    struct Phase {
        std::string name;         ///< what the phase does ("" for the first, unnamed one)
        std::vector<Item> items;  ///< its allocations
        std::size_t requested() const;  ///< the sum of the items' requested bytes (saturating)
        std::size_t rounded() const;    ///< the sum of the items' rounded bytes (saturating)
    };

    /// A plan for @p purpose, e.g. "the modern-f64 integral and the star table": the message's subject.
    explicit DevicePlan(std::string purpose = {});

    /// Adds @p copies allocations of @p count elements of @p element_bytes bytes each to the current phase.
    DevicePlan& add(std::string what, std::size_t count, std::size_t element_bytes, std::size_t copies = 1);
    /// The same with the element size of T.
    template <class T>
    DevicePlan& add(std::string what, std::size_t count, std::size_t copies = 1) {
        return add(std::move(what), count, sizeof(T), copies);
    }
    /// Adds the items of @p other's largest phase (the part of @p other that is live at its peak) to the
    /// current phase, @p copies times, each item's name after @p prefix.
    DevicePlan& include(const DevicePlan& other, std::size_t copies = 1, const std::string& prefix = {});
    /// Starts a new phase named @p name: what was planned so far is freed before its allocations.
    DevicePlan& then(std::string name);
    /// Names the current phase (the message says which phase is the largest), e.g. "the integral runs".
    DevicePlan& phase(std::string name);

    /// The purpose given at construction.
    const std::string& purpose() const { return purpose_; }
    /// Every phase, in order (at least one, possibly empty).
    const std::vector<Phase>& phases() const { return phases_; }
    /// The phase with the most rounded bytes (the first of equals).
    const Phase& peak() const;
    /// The rounded bytes of the largest phase: what the device must hold at once.
    std::size_t peak_bytes() const;
    /// The requested bytes of every phase added up (for tests that count what was really allocated).
    std::size_t requested_bytes() const;
    /// peak_bytes() plus device_reserve_bytes: what the check asks to be free.
    std::size_t needed_bytes() const;

private:
    std::string purpose_;
    std::vector<Phase> phases_;
};

/// The memory of one device as the check sees it.
struct DeviceMemoryState {
    int device = 0;                     ///< its CUDA device number
    std::string name;                   ///< its name, e.g. "NVIDIA H200"
    std::size_t free = 0;               ///< free bytes as the device reports them
    std::size_t total = 0;              ///< its memory in bytes
    std::optional<std::size_t> limit;   ///< the test hook's cap, when set
    /// The free bytes the check believes: free, or the cap where that is smaller.
    std::size_t believed_free() const { return limit && *limit < free ? *limit : free; }
};

/// A plan that does not fit the device: what() names the purpose, the bytes needed, free and total, the
/// device, the test hook where it capped the free memory, and the largest items of the plan.
class DeviceMemoryShortage : public std::runtime_error {
public:
    /// The refusal @p message, the bytes @p needed and the @p free bytes the check believed.
    DeviceMemoryShortage(const std::string& message, std::size_t needed, std::size_t free)
        : std::runtime_error(message), needed_(needed), free_(free) {}
    std::size_t needed() const { return needed_; }  ///< the bytes the plan needs (reserve included)
    std::size_t free() const { return free_; }      ///< the free bytes the check believed

private:
    std::size_t needed_;
    std::size_t free_;
};

/// @p bytes for a person: "1.25 GiB (1342177280 bytes)"; binary units, three significant digits.
std::string describe_bytes(std::size_t bytes);

/// A size as the test hook takes it: digits with an optional fraction, then an optional unit (B; kB, MB,
/// GB, TB in powers of 1000; KiB, MiB, GiB, TiB and K, M, G, T in powers of 1024), case-sensitive as written
/// here, spaces around the unit allowed; the result must be a whole number of bytes. Empty when @p text is none of these or does not fit
/// in size_t.
std::optional<std::size_t> parse_byte_size(std::string_view text);

/// The cap the test hook sets: nothing when the variable is unset or empty; std::invalid_argument naming the
/// variable and the value when it is set to something parse_byte_size() refuses.
std::optional<std::size_t> device_memory_limit();

/// Throws DeviceMemoryShortage when @p plan needs more than @p state believes free (needed_bytes() against
/// believed_free()); nothing otherwise. @p advice, where given, ends the message (what to change).
void check_device_budget(const DevicePlan& plan, const DeviceMemoryState& state, const std::string& advice = {});

}  // namespace harness
