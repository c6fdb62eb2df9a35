#include "mwsep/model/astronomy_parameters.hpp"

#include <charconv>
#include <fstream>

#include "harness/excerpt.hpp"
#include "mwsep/model/text_fields.hpp"

namespace mwsep::model {
namespace {

/// Reads `name[N]: v1, ..., vN`, checking that the bracketed N, @p expected (if >= 0) and the number
/// of values agree. The count may be written with an extra space before the bracket in older files.
template <class T, class Parse>
std::vector<T> read_array(LineReader& reader, const std::string& name, int expected, Parse parse) {
    const std::string key_seen = reader.peek_key();
    const auto bracket = key_seen.find('[');
    const std::string file = reader.file();
    if (bracket == std::string::npos || std::string(trim(key_seen.substr(0, bracket))) != name) {
        // Produce the standard "expected key" message.
        reader.expect(name + "[" + (expected >= 0 ? std::to_string(expected) : std::string("N")) + "]");
    }
    const auto field = reader.expect(key_seen);
    const auto close = key_seen.find(']', bracket);
    if (close == std::string::npos || close != key_seen.size() - 1)
        throw InputError(file, field.line, name, "malformed array key " + harness::quoted(key_seen) + ", expected '" + name + "[N]'");
    const int count = parse_int(key_seen.substr(bracket + 1, close - bracket - 1), file, field.line, name + "[N]");
    if (count < 0) throw InputError(file, field.line, name, "negative array size " + std::to_string(count));
    if (expected >= 0 && count != expected)
        throw InputError(file, field.line, name,
                         "array size [" + std::to_string(count) + "] disagrees with the expected " +
                             std::to_string(expected));
    const auto tokens = split_commas(field.value, file, field.line, name);
    if (static_cast<int>(tokens.size()) != count)
        throw InputError(file, field.line, name,
                         "declares " + std::to_string(count) + " values but the line has " +
                             std::to_string(tokens.size()));
    std::vector<T> out;
    for (const auto& t : tokens) out.push_back(parse(t, file, field.line, name));
    return out;
}

std::vector<double> read_doubles(LineReader& r, const std::string& name, int expected) {
    return read_array<double>(r, name, expected, parse_double);
}
std::vector<int> read_ints(LineReader& r, const std::string& name, int expected) {
    return read_array<int>(r, name, expected, parse_int);
}

double read_double(LineReader& r, const std::string& key) {
    const auto f = r.expect(key);
    return parse_double(f.value, r.file(), f.line, key);
}
int read_int(LineReader& r, const std::string& key) {
    const auto f = r.expect(key);
    return parse_int(f.value, r.file(), f.line, key);
}

/// Reads `key: min, max, steps` (the [I] index of cut keys is part of @p key and ignored).
GridAxis read_axis(LineReader& r, const std::string& key, const std::string& name) {
    const auto f = r.expect(key);
    const auto tokens = split_commas(f.value, r.file(), f.line, name);
    if (tokens.size() != 3)
        throw InputError(r.file(), f.line, name,
                         "expected 3 values (min, max, steps), found " + std::to_string(tokens.size()));
    return {parse_double(tokens[0], r.file(), f.line, name), parse_double(tokens[1], r.file(), f.line, name),
            parse_int(tokens[2], r.file(), f.line, name)};
}

/// Cut keys carry an index that the original ignored: `r_cut[min,max,steps][3]`.
GridAxis read_cut_axis(LineReader& r, const std::string& base) {
    const std::string prefix = base + "[min,max,steps]";
    const std::string seen = r.peek_key();
    if (seen.rfind(prefix, 0) != 0 || seen.size() < prefix.size() + 3 || seen[prefix.size()] != '[' ||
        seen.back() != ']')
        r.expect(prefix + "[I]");  // throws the standard message
    parse_int(seen.substr(prefix.size() + 1, seen.size() - prefix.size() - 2), r.file(), r.peek_line(), prefix);
    return read_axis(r, seen, base);
}

}  // namespace

AstronomyParameters parse_astronomy_parameters(std::istream& in, const std::string& source) {
    LineReader r(in, source);
    AstronomyParameters ap;
    ap.source = source;
    if (r.peek_key() == "parameters_version") ap.parameters_version = read_double(r, "parameters_version");

    const auto f_np = r.expect("number_parameters");
    const int n_bg = parse_int(f_np.value, source, f_np.line, "number_parameters");
    if (n_bg != 4 && n_bg < 7)
        throw InputError(source, f_np.line, "number_parameters",
                         "must be 4 (alpha, q, r0, delta) or at least 7 (with the auxiliary A, B, C), found " +
                             std::to_string(n_bg));
    ap.background_weight = read_double(r, "background_weight");
    ap.background_parameters = read_doubles(r, "background_parameters", n_bg);
    ap.background_step = read_doubles(r, "background_step", n_bg);
    ap.background_min = read_doubles(r, "background_min", n_bg);
    ap.background_max = read_doubles(r, "background_max", n_bg);
    ap.optimize_background = read_ints(r, "optimize_parameter", n_bg);

    const auto f_ns = r.expect("number_streams");
    const auto ns_tokens = split_commas(f_ns.value, source, f_ns.line, "number_streams");
    if (ns_tokens.size() != 2)
        throw InputError(source, f_ns.line, "number_streams",
                         "expected 'S, P' (streams, parameters per stream), found " + harness::quoted(f_ns.value));
    const int n_streams = parse_int(ns_tokens[0], source, f_ns.line, "number_streams");
    ap.parameters_per_stream = parse_int(ns_tokens[1], source, f_ns.line, "number_streams");
    if (n_streams < 0)
        throw InputError(source, f_ns.line, "number_streams", "negative stream count " + std::to_string(n_streams));
    if (ap.parameters_per_stream != 5)
        throw InputError(source, f_ns.line, "number_streams",
                         "parameters per stream must be 5 (mu, r, theta, phi, sigma), found " +
                             std::to_string(ap.parameters_per_stream));
    for (int s = 0; s < n_streams; ++s) {
        StreamBlock b;
        b.weight = read_double(r, "stream_weight");
        b.weight_step = read_double(r, "stream_weight_step");
        b.weight_min = read_double(r, "stream_weight_min");
        b.weight_max = read_double(r, "stream_weight_max");
        b.optimize_weight = read_int(r, "optimize_weight");
        b.parameters = read_doubles(r, "stream_parameters", 5);
        b.step = read_doubles(r, "stream_step", 5);
        b.min = read_doubles(r, "stream_min", 5);
        b.max = read_doubles(r, "stream_max", 5);
        b.optimize = read_ints(r, "optimize_parameter", 5);
        ap.streams.push_back(std::move(b));
    }
    ap.convolve = read_int(r, "convolve");
    ap.sgr_coordinates = read_int(r, "sgr_coordinates");
    if (r.peek_key() == "aux_bg_profile") ap.aux_bg_profile = read_int(r, "aux_bg_profile");
    ap.wedge = read_int(r, "wedge");
    ap.main.r = read_axis(r, "r[min,max,steps]", "r");
    ap.main.mu = read_axis(r, "mu[min,max,steps]", "mu");
    ap.main.nu = read_axis(r, "nu[min,max,steps]", "nu");
    const auto f_cuts = r.expect("number_cuts");
    const int n_cuts = parse_int(f_cuts.value, source, f_cuts.line, "number_cuts");
    if (n_cuts < 0)
        throw InputError(source, f_cuts.line, "number_cuts", "must be 0 or more, found " + std::to_string(n_cuts));
    for (int c = 0; c < n_cuts; ++c) {
        Area a;
        a.r = read_cut_axis(r, "r_cut");
        a.mu = read_cut_axis(r, "mu_cut");
        a.nu = read_cut_axis(r, "nu_cut");
        ap.cuts.push_back(a);
    }
    if (!r.at_end()) {
        const auto extra = r.next_raw("end of file");
        throw InputError(source, extra.line, "", "unexpected content after the last cut: " + harness::quoted(extra.value));
    }
    ap.key_lines = r.key_lines();
    return ap;
}

AstronomyParameters read_astronomy_parameters(const std::string& path) {
    auto in = open_input(path);
    return parse_astronomy_parameters(in, path);
}

namespace {

std::string shortest(double v) {
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    std::string s(buf, res.ptr);
    // Keep a decimal point on integral values so that the file reads as the originals do ("1.0").
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}

template <class T>
void write_array(std::ostream& out, const std::string& name, const std::vector<T>& values) {
    out << name << '[' << values.size() << "]: ";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i) out << ", ";
        if constexpr (std::is_same_v<T, double>) out << shortest(values[i]);
        else out << values[i];
    }
    out << '\n';
}

void write_axis(std::ostream& out, const std::string& key, const GridAxis& a) {
    out << key << ": " << shortest(a.min) << ", " << shortest(a.max) << ", " << a.steps << '\n';
}

}  // namespace

void write_astronomy_parameters(std::ostream& out, const AstronomyParameters& ap) {
    if (ap.parameters_version) out << "parameters_version: " << shortest(*ap.parameters_version) << '\n';
    out << "number_parameters: " << ap.background_parameters.size() << '\n';
    out << "background_weight: " << shortest(ap.background_weight) << '\n';
    write_array(out, "background_parameters", ap.background_parameters);
    write_array(out, "background_step", ap.background_step);
    write_array(out, "background_min", ap.background_min);
    write_array(out, "background_max", ap.background_max);
    write_array(out, "optimize_parameter", ap.optimize_background);
    out << "number_streams: " << ap.streams.size() << ", " << ap.parameters_per_stream << '\n';
    for (const auto& s : ap.streams) {
        out << "stream_weight: " << shortest(s.weight) << '\n';
        out << "stream_weight_step: " << shortest(s.weight_step) << '\n';
        out << "stream_weight_min: " << shortest(s.weight_min) << '\n';
        out << "stream_weight_max: " << shortest(s.weight_max) << '\n';
        out << "optimize_weight: " << s.optimize_weight << '\n';
        write_array(out, "stream_parameters", s.parameters);
        write_array(out, "stream_step", s.step);
        write_array(out, "stream_min", s.min);
        write_array(out, "stream_max", s.max);
        write_array(out, "optimize_parameter", s.optimize);
    }
    out << "convolve: " << ap.convolve << '\n';
    out << "sgr_coordinates: " << ap.sgr_coordinates << '\n';
    if (ap.aux_bg_profile) out << "aux_bg_profile: " << *ap.aux_bg_profile << '\n';
    out << "wedge: " << ap.wedge << '\n';
    write_axis(out, "r[min,max,steps]", ap.main.r);
    write_axis(out, "mu[min,max,steps]", ap.main.mu);
    write_axis(out, "nu[min,max,steps]", ap.main.nu);
    out << "number_cuts: " << ap.cuts.size() << '\n';
    int index = 0;
    for (const auto& c : ap.cuts) {
        const std::string idx = "[" + std::to_string(index++) + "]";
        write_axis(out, "r_cut[min,max,steps]" + idx, c.r);
        write_axis(out, "mu_cut[min,max,steps]" + idx, c.mu);
        write_axis(out, "nu_cut[min,max,steps]" + idx, c.nu);
    }
}

}  // namespace mwsep::model
