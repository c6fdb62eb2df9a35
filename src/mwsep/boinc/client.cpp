#include "mwsep/boinc/client.hpp"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <stdexcept>

#include "app_ipc.h"
#include "boinc_api.h"
#include "diagnostics.h"

namespace mwsep::boinc {
namespace {

/// The file a BOINC client writes into the slot folder before it starts the application; the runtime
/// itself decides standalone mode by its absence.
constexpr const char* init_data_file = "init_data.xml";

/// The signals whose handlers the runtime's diagnostics replace. Standalone, the previous handlers are put
/// back, so that Ctrl-C, a closed pipe or a crash do to the program what they do to the ordinary build.
constexpr int diagnosed_signals[] = {SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGABRT, SIGBUS, SIGSEGV, SIGSYS, SIGPIPE};

std::mutex checkpoint_mutex;           // serialises the runtime's checkpoint calls (they share globals)
bool checkpoint_requested = false;     // the runtime said yes and awaits checkpoint_completed()
std::atomic<double> last_fraction{-1};  // the fraction last reported (-1: none yet)

}  // namespace

void start() {
    const bool client = std::filesystem::exists(init_data_file);
    struct sigaction previous[std::size(diagnosed_signals)];
    for (std::size_t i = 0; i < std::size(diagnosed_signals); ++i) sigaction(diagnosed_signals[i], nullptr, &previous[i]);
    // Under a client, the runtime's defaults (standard error to the slot's stderr.txt, call stacks on
    // crashes); standalone, nothing redirected: the output stays where the caller sent it.
    const int flags = client ? BOINC_DIAG_DEFAULTS : BOINC_DIAG_TRACETOSTDERR;
    if (const int rc = boinc_init_diagnostics(flags); rc != 0)
        throw std::runtime_error("the BOINC runtime's diagnostics did not start (error " + std::to_string(rc) + ")");
    if (const int rc = boinc_init(); rc != 0)
        throw std::runtime_error("the BOINC runtime did not start (boinc_init returned " + std::to_string(rc) + ")");
    if (boinc_is_standalone())
        for (std::size_t i = 0; i < std::size(diagnosed_signals); ++i) sigaction(diagnosed_signals[i], &previous[i], nullptr);
}

bool standalone() { return boinc_is_standalone() != 0; }

std::string resolve(const std::string& logical_name) {
    std::string physical;
    if (const int rc = boinc_resolve_filename_s(logical_name.c_str(), physical); rc != 0)
        throw std::runtime_error("the BOINC runtime cannot resolve the file name '" + logical_name + "' (error " +
                                 std::to_string(rc) + ")");
    return physical;
}

void report_progress(std::size_t done, std::size_t total) {
    const double f = total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
    last_fraction.store(f);
    boinc_fraction_done(f);  // one double stored by the runtime; its timer thread sends it to the client
}

double reported_fraction_done() { return last_fraction.load(); }

// [boinc-checkpoint-begin]
bool time_to_checkpoint() {
    const std::lock_guard lock(checkpoint_mutex);
    if (!checkpoint_requested) checkpoint_requested = boinc_time_to_checkpoint() != 0;
    return checkpoint_requested;
}

void checkpoint_completed() {
    const std::lock_guard lock(checkpoint_mutex);
    boinc_checkpoint_completed();
    checkpoint_requested = false;
}
// [boinc-checkpoint-end]

void finish(int status) {
    std::fflush(stdout);
    boinc_finish(status);
    std::abort();  // boinc_finish exits the process; this line is never reached
}

}  // namespace mwsep::boinc
