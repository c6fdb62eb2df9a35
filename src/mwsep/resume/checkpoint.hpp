/// @file checkpoint.hpp
/// @brief Saving an integration that has run part way, and resuming it (`mwsep run --checkpoint FILE`).
///
/// An integration is a fixed list of work items (the mu rows of every area on the CPU, the reduction chunks
/// of every area on the GPU); each completed item has a few numbers (its partial sums) that the integrator
/// adds in a fixed order at the end. A checkpoint holds the items done and their numbers; a resumed run
/// computes only the others and adds everything in the same order, so its result is bit-identical to an
/// uninterrupted run. The serial reference integrator instead saves how many items it has done and its
/// running sums (the carry). The file is written atomically (temporary file, fsync, rename) and carries a
/// format version, a hash of the inputs and settings, and a checksum; a checkpoint of other inputs,
/// another engine or a damaged file is refused with a message.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace mwsep::resume {

/// The work done so far: per work item a done flag and `width` numbers; for a serial integrator, the
/// running sums after the done items (which are then a prefix of the list).
struct Progress {
    std::size_t items = 0;              ///< work items in all
    std::size_t width = 0;              ///< numbers kept per item
    std::vector<std::uint8_t> done;     ///< per item: 1 once its numbers are final
    std::vector<double> values;         ///< items x width numbers
    std::vector<double> carry;          ///< a serial integrator's running sums (empty otherwise)

    /// An empty record of @p n_items items of @p n_width numbers each.
    static Progress empty(std::size_t n_items, std::size_t n_width);
    /// How many items are done.
    std::size_t done_count() const;
};

/// Thrown once the state is saved after a SIGINT or SIGTERM; the program then exits with 128 + signal.
class Interrupted : public std::runtime_error {
public:
    /// @p signal_number is the signal that asked for the stop; @p message says where the state went.
    Interrupted(int signal_number, const std::string& message) : std::runtime_error(message), signal(signal_number) {}
    int signal;  ///< SIGINT or SIGTERM
};

/// From now on SIGINT and SIGTERM set a flag (stop_requested()) instead of ending the process, so that an
/// integration can finish its current item and save. Installed only by runs that checkpoint.
void install_stop_handlers();
/// The signal that asked to stop, or 0.
int stop_requested();
/// Clears the flag (tests).
void clear_stop_request();

/// FNV-1a over @p bytes, continuing from @p h: the identity of the inputs and the file's checksum.
std::uint64_t fnv1a(const void* bytes, std::size_t n, std::uint64_t h = 1469598103934665603ull);
/// The FNV-1a hash of a whole file's bytes folded into @p h; throws std::runtime_error if it cannot be read.
std::uint64_t hash_file(const std::string& path, std::uint64_t h);

/// One run's checkpoint file: loads a matching one, saves at intervals and when asked to stop.
/// Thread-safe: workers of a parallel integrator call save_if_due() after each item.
class Checkpoint {
public:
    /// @p path is the file; @p interval_seconds the least time between two periodic saves; @p identity the
    /// hash of the inputs and settings; @p engine the integrator ("cpu fast", "cuda modern-f64", ...).
    Checkpoint(std::string path, double interval_seconds, std::uint64_t identity, std::string engine);

    /// Loads the file into @p p if it exists: returns false when there is none (a fresh start). Throws
    /// std::runtime_error, naming the file and what differs, when it belongs to other inputs, settings or
    /// engine, has another shape than @p p, or is damaged. @p p must be Progress::empty of the right shape.
    bool load(Progress& p) const;
    /// Whether the interval has passed since the last save (or the start), or also_due says yes.
    bool due() const;
    /// Saves @p p now, atomically. @p p may be read while other threads finish items: a done flag is
    /// read with acquire order and set by the integrator with release order after the item's numbers.
    void save(const Progress& p);
    /// save(), if due().
    void save_if_due(const Progress& p);
    /// If a stop was requested: saves @p p and throws Interrupted with a message naming the file.
    void stop_if_requested(const Progress& p);
    /// Removes the file after the run has finished (a later run starts afresh).
    void finish() const;
    /// The file's path.
    const std::string& path() const { return path_; }
    /// Told, by load(), how much of the work a resumed run finds done (the program prints it).
    std::function<void(std::size_t done, std::size_t items)> on_resume;
    /// Asked by due() when the interval has not passed: another reason to save now (a BOINC client's
    /// "time to checkpoint"). Empty: the interval alone decides. Called under no lock, from any thread.
    std::function<bool()> also_due;
    /// Told after each save, once the file is in place (a BOINC client's "checkpoint completed").
    std::function<void()> on_saved;

private:
    void save_locked(const Progress& p);

    std::string path_;
    double interval_;
    std::uint64_t identity_;
    std::string engine_;
    std::mutex mutex_;
    std::atomic<std::int64_t> last_save_ns_;
};

/// Reads the done flag of item @p i (acquire), for integrators that fill items on several threads.
inline bool is_done(const Progress& p, std::size_t i) {
    // atomic_ref needs a mutable object; the load does not modify it.
    return std::atomic_ref<std::uint8_t>(const_cast<std::uint8_t&>(p.done[i])).load(std::memory_order_acquire) != 0;
}
/// Marks item @p i done (release) after its numbers are written.
inline void mark_done(Progress& p, std::size_t i) {
    std::atomic_ref<std::uint8_t>(p.done[i]).store(1, std::memory_order_release);
}

}  // namespace mwsep::resume
