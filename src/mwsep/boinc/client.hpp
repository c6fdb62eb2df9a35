/// @file client.hpp
/// @brief The BOINC application API as `mwsep run` uses it: start, file-name resolution, fraction done,
/// checkpoint timing and finish. Only this file's implementation includes the BOINC headers.
///
/// Under a BOINC client the working folder is the client's slot folder: it holds init_data.xml, and each
/// input or output file is there under its logical name, as a link to the real file in the project folder.
/// Without a client (standalone) the runtime reads no init_data.xml, resolves every name to itself, never
/// asks for a checkpoint and keeps standard error where it is, so the program behaves as the ordinary build.
#pragma once

#include <cstddef>
#include <string>

namespace mwsep::boinc {

/// Starts the BOINC runtime (boinc_init_diagnostics, then boinc_init): under a client standard error goes
/// to the slot's stderr.txt, as the client expects; standalone it is left alone. Throws std::runtime_error
/// with the runtime's error code if it cannot start. Call once, before any other function here.
void start();

/// Whether the runtime found no client (standalone). Valid after start().
bool standalone();

/// The physical path of the file the work unit names @p logical_name (boinc_resolve_filename_s):
/// the target of the slot's link under a client, @p logical_name itself standalone. Throws
/// std::runtime_error naming the file if the runtime cannot resolve it.
std::string resolve(const std::string& logical_name);

/// Reports @p done of @p total work items as the fraction done (boinc_fraction_done); thread-safe.
void report_progress(std::size_t done, std::size_t total);

/// The fraction last given to report_progress() (-1 before any), for the finishing line and the tests.
double reported_fraction_done();

/// Whether the client asks for a checkpoint now (boinc_time_to_checkpoint). Thread-safe. The runtime
/// enters a critical section each time it says yes, so a yes is remembered until checkpoint_completed():
/// asking again meanwhile says yes without asking the runtime.
bool time_to_checkpoint();

/// Tells the runtime a checkpoint was written (boinc_checkpoint_completed), which also ends the critical
/// section a yes of time_to_checkpoint() opened. Thread-safe; called after every save.
void checkpoint_completed();

/// Ends the program through the runtime (boinc_finish): @p status 0 reports success to the client, any
/// other value a failure. Flushes standard output first. Does not return.
[[noreturn]] void finish(int status);

}  // namespace mwsep::boinc
