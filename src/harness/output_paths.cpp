#include "harness/output_paths.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "harness/atomic_file.hpp"
#include "harness/options.hpp"

namespace harness {

std::string short_number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

bool same_file(const std::string& a, const std::string& b) {
    namespace fs = std::filesystem;
    struct stat sa{}, sb{};
    const bool a_exists = ::stat(a.c_str(), &sa) == 0, b_exists = ::stat(b.c_str(), &sb) == 0;
    if (a_exists && b_exists) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (a_exists != b_exists) return false;  // one file exists, the other does not: two files
    // Neither exists yet (two outputs): the same name once resolved, links in the existing part included.
    std::error_code ea, eb;
    const fs::path pa = fs::weakly_canonical(fs::absolute(a, ea), ea);
    const fs::path pb = fs::weakly_canonical(fs::absolute(b, eb), eb);
    if (ea || eb) return fs::absolute(a, ea).lexically_normal() == fs::absolute(b, eb).lexically_normal();
    return pa == pb;
}

void check_outputs(const std::string& command, const std::vector<NamedPath>& inputs,
                   const std::vector<NamedPath>& outputs) {
    const auto fail = [&](const NamedPath& o, const std::string& what) {
        return OptionError(command + ": " + o.option + ": '" + o.path + "' " + what);
    };
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        const NamedPath& out = outputs[i];
        if (out.path.empty()) throw fail(out, "is empty: expected the name of a file to write");
        if (out.path == "-") {  // standard output (a CSV's `-`): no file to check, but only one output may take it
            for (std::size_t j = 0; j < i; ++j)
                if (outputs[j].path == "-")
                    throw fail(out, "is standard output, which " + outputs[j].option + " writes already");
            continue;
        }
        for (const NamedPath& in : inputs)
            if (!in.path.empty() && same_file(out.path, in.path))
                throw fail(out, "is the same file as the input '" + in.path + "' (" + in.option +
                                    "): an output never replaces an input; name another file");
        for (std::size_t j = 0; j < i; ++j)
            if (outputs[j].path != "-" && same_file(out.path, outputs[j].path))
                throw fail(out, "is the same file as the output of " + outputs[j].option + " ('" + outputs[j].path +
                                    "'): each output needs a file of its own");
        try {
            check_output_path(out.path);
        } catch (const std::exception& e) {
            throw OptionError(command + ": " + out.option + ": " + e.what());
        }
    }
}

}  // namespace harness
