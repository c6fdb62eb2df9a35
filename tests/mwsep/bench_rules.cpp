// mwsep_rule_bench: how long the compressed quadrature's ladder of Gauss rules takes to build, per work unit.
// A benchmark that prints its times, not a test (the tests check the rules; see test_compressed.cpp).
//
//   mwsep_rule_bench [--repeats N] [--reference] [--kpc] ASTRONOMY_PARAMETERS...
//
// For each work unit: the measure's points, the reduced measure's, the ladder's levels and why it ends, the
// construction's stages (wall clock, the fastest of the repeats), the whole construction's wall and CPU
// time on the calling thread (fastest and median), and a checksum of every level's nodes and weights as
// the integrators use them (two builds of the project give the same rules exactly when their checksums
// agree). --reference also times the long-double construction once (build_ladder_reference), the
// construction before the fast one and now its fallback: slow (seconds on the large grids), its recurrence
// multithreaded, so its CPU time is summed over the threads.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <string>
#include <vector>

#include "mwsep/cpu/compressed_rule.hpp"
#include "mwsep/geometry/tables.hpp"
#include "mwsep/model/astronomy_parameters.hpp"
#include "mwsep/model/build_model.hpp"

namespace {

double cpu_seconds(clockid_t which) {
    timespec t{};
    clock_gettime(which, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}
double thread_seconds() { return cpu_seconds(CLOCK_THREAD_CPUTIME_ID); }
double process_seconds() { return cpu_seconds(CLOCK_PROCESS_CPUTIME_ID); }

/// FNV-1a over the bits of every level's r, weight and ln r.
std::uint64_t checksum(const mwsep::cpu::CompressedLadder& ladder) {
    std::uint64_t h = 1469598103934665603ull;
    const auto mix = [&h](const std::vector<double>& v) {
        for (const double d : v) {
            std::uint64_t bits;
            std::memcpy(&bits, &d, sizeof bits);
            h = (h ^ bits) * 1099511628211ull;
        }
    };
    for (int k = 0; k < ladder.levels(); ++k) {
        mix(ladder.r[k]);
        mix(ladder.weight[k]);
        mix(ladder.x[k]);
    }
    return h;
}

std::string sizes(const mwsep::cpu::CompressedLadder& ladder) {
    std::string s;
    for (const int n : ladder.size) s += (s.empty() ? "" : ",") + std::to_string(n);
    return s;
}

int usage(const char* why) {
    if (why) std::fprintf(stderr, "mwsep_rule_bench: %s\n", why);
    std::fprintf(stderr, "usage: mwsep_rule_bench [--repeats N] [--reference] [--kpc] ASTRONOMY_PARAMETERS...\n");
    return why ? 2 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    int repeats = 10;
    bool reference = false;
    auto binning = mwsep::model::RBinning::magnitude;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h") return usage(nullptr);
        if (a == "--reference") reference = true;
        else if (a == "--kpc") binning = mwsep::model::RBinning::kpc;
        else if (a == "--repeats") {
            if (i + 1 >= argc) return usage("--repeats needs a value");
            char* end = nullptr;
            const long v = std::strtol(argv[++i], &end, 10);
            if (!end || *end || v < 1 || v > 100000) return usage("--repeats must be an integer from 1 to 100000");
            repeats = static_cast<int>(v);
        } else if (!a.empty() && a[0] == '-') {
            return usage(("unknown option '" + a + "'").c_str());
        } else {
            files.push_back(a);
        }
    }
    if (files.empty()) return usage("no work unit given");
    try {
        for (const std::string& file : files) {
            const auto setup = mwsep::geometry::make_setup(
                mwsep::model::build_model(mwsep::model::read_astronomy_parameters(file), binning));
            std::printf("%s\n", file.c_str());
            for (std::size_t area = 0; area < setup.areas.size(); ++area) {
                const auto los = mwsep::geometry::fold_line_of_sight(setup.areas[area]);
                std::vector<double> wall, cpu;
                double reduce = 1e300, recurrence = 1e300, rules = 1e300;
                mwsep::cpu::CompressedLadder ladder;
                for (int r = 0; r < repeats; ++r) {
                    const double c0 = thread_seconds();
                    const auto w0 = std::chrono::steady_clock::now();
                    ladder = mwsep::cpu::build_ladder(los);
                    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count());
                    cpu.push_back(thread_seconds() - c0);
                    reduce = std::min(reduce, ladder.reduce_seconds);
                    recurrence = std::min(recurrence, ladder.recurrence_seconds);
                    rules = std::min(rules, ladder.rules_seconds);
                }
                std::sort(wall.begin(), wall.end());
                std::sort(cpu.begin(), cpu.end());
                std::printf("  area %zu: %zu points -> %d reduced; %s construction; levels %s%s%s\n", area,
                            los.r_point.size(), ladder.reduced_points, ladder.construction.c_str(), sizes(ladder).c_str(),
                            ladder.stopped.empty() ? "" : " (", ladder.stopped.empty() ? "" : (ladder.stopped + ")").c_str());
                std::printf("    stages (fastest of %d): reduce %.2f ms, recurrence %.2f ms, rules %.2f ms (%d started from QL)\n",
                            repeats, 1e3 * reduce, 1e3 * recurrence, 1e3 * rules, ladder.ql_starts);
                std::printf("    build_ladder: wall %.2f ms fastest, %.2f ms median; thread CPU %.2f ms fastest, %.2f ms median\n",
                            1e3 * wall.front(), 1e3 * wall[wall.size() / 2], 1e3 * cpu.front(), 1e3 * cpu[cpu.size() / 2]);
                std::printf("    checksum %016llx\n", static_cast<unsigned long long>(checksum(ladder)));
                if (reference) {
                    const double c0 = process_seconds();
                    const auto ref = mwsep::cpu::build_ladder_reference(los);
                    std::printf("    build_ladder_reference: wall %.1f ms, CPU %.1f ms over its threads; levels %s%s%s\n",
                                1e3 * ref.build_seconds, 1e3 * (process_seconds() - c0), sizes(ref).c_str(),
                                ref.stopped.empty() ? "" : " (", ref.stopped.empty() ? "" : (ref.stopped + ")").c_str());
                }
            }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mwsep_rule_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
