// `mwsep run` as a BOINC application (built with MWSEP_BOINC): the runtime's hooks around command_run.
#include <cstdio>
#include <exception>

#include "mwsep/app/commands.hpp"
#include "mwsep/boinc/client.hpp"

namespace mwsep::app {

int command_run_boinc(const Args& args) {
    try {
        boinc::start();
    } catch (const std::exception& e) {
        // Without a runtime there is no boinc_finish to call: an ordinary failing exit.
        std::fprintf(stderr, "mwsep: error: %s\n", e.what());
        return 1;
    }
    // [boinc-hooks-begin]
    RunHooks hooks;
    hooks.resolve = boinc::resolve;
    hooks.progress = boinc::report_progress;
    hooks.checkpoint_due = boinc::time_to_checkpoint;
    hooks.checkpoint_saved = boinc::checkpoint_completed;
    // [boinc-hooks-end]
    int status = 1;
    try {
        status = command_run(args, hooks);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mwsep: error: %s\n", e.what());
        status = 1;
    }
    // [boinc-finish-begin]
    // Stopped by SIGINT or SIGTERM after saving the checkpoint: not a result, neither success nor failure;
    // the process ends as the ordinary program does (128 + signal) and the next start resumes.
    if (status > 128) return status;
    if (boinc::reported_fraction_done() >= 0)
        std::fprintf(stderr, "mwsep: BOINC: the integral reported fraction done %.17g (%s)\n",
                     boinc::reported_fraction_done(), boinc::standalone() ? "standalone" : "to the client");
    boinc::finish(status);
    // [boinc-finish-end]
}

}  // namespace mwsep::app
