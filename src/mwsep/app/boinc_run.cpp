// `mwsep run` as a BOINC application (built with MWSEP_BOINC): the runtime's hooks around command_run.
#include <cstdio>
#include <exception>
#include <string>

#include "harness/options.hpp"
#include "harness/subcommands.hpp"
#include "mwsep/app/commands.hpp"
#include "mwsep/boinc/client.hpp"

namespace mwsep::app {

int command_run_boinc(const Args& args) {
    // The help needs no runtime: it is the ordinary program's, with the BOINC application's --result.
    for (const auto& a : args)
        if (a == "--help" || a == "-h") {
            RunHooks help;
            help.resolve = [](const std::string& name) { return name; };
            return command_run(args, help);  // throws harness::HelpRequested, which the entry point prints
        }
    try {
        boinc::start();
    } catch (const std::exception& e) {
        // Without a runtime there is no boinc_finish to call: an ordinary failing exit.
        std::fprintf(stderr, "mwsep run: error: %s\n", e.what());
        return harness::exit_status::not_done;
    }
    // [boinc-hooks-begin]
    RunHooks hooks;
    hooks.resolve = boinc::resolve;
    hooks.progress = boinc::report_progress;
    hooks.checkpoint_due = boinc::time_to_checkpoint;
    hooks.checkpoint_saved = boinc::checkpoint_completed;
    // [boinc-hooks-end]
    int status = harness::exit_status::not_done;
    try {
        status = command_run(args, hooks);
    } catch (const harness::OptionError& e) {
        // As the entry point words and numbers it (docs/cli.md), then through boinc_finish.
        std::fprintf(stderr, "mwsep run: error: %s\n", harness::error_message("mwsep", "mwsep run", e.what()).c_str());
        status = harness::exit_status::usage;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mwsep run: error: %s\n", harness::error_message("mwsep", "mwsep run", e.what()).c_str());
        status = harness::exit_status::not_done;
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
