#include "mwsep/model/search_parameters.hpp"

#include "harness/excerpt.hpp"

#include "mwsep/model/text_fields.hpp"

namespace mwsep::model {

SearchVector parse_search_parameters(std::istream& in, const std::string& source) {
    LineReader r(in, source);
    SearchVector v;
    v.source = source;
    const auto name_line = r.next_raw("search name");
    const auto name_tokens = split_whitespace(name_line.value);
    if (name_tokens.size() != 1 || name_line.value.find(':') != std::string::npos)
        throw InputError(source, name_line.line, "search name",
                         "expected one word naming the search, found " + harness::quoted(name_line.value));
    v.name = std::string(name_tokens[0]);

    const auto params = r.next_raw("parameters");
    const std::string& text = params.value;
    const auto colon = text.find(':');
    const auto open = text.find('[');
    const auto close = text.find(']');
    if (colon == std::string::npos || open == std::string::npos || close == std::string::npos || close > colon ||
        std::string(trim(std::string_view(text).substr(0, open))) != "parameters")
        throw InputError(source, params.line, "parameters", "expected 'parameters [M]: v1 ... vM', found " + harness::quoted(text));
    const int count = parse_int(std::string_view(text).substr(open + 1, close - open - 1), source, params.line,
                                "parameters [M]");
    if (count < 0) throw InputError(source, params.line, "parameters", "negative count " + std::to_string(count));
    const auto tokens = split_whitespace(std::string_view(text).substr(colon + 1));
    if (static_cast<int>(tokens.size()) != count)
        throw InputError(source, params.line, "parameters",
                         "declares " + std::to_string(count) + " values but the line has " +
                             std::to_string(tokens.size()));
    for (const auto& t : tokens) v.values.push_back(parse_double(t, source, params.line, "parameters"));

    if (!r.at_end()) {
        const auto meta = r.next_raw("metadata");
        const std::string prefix = "metadata:";
        v.metadata = meta.value.rfind(prefix, 0) == 0 ? std::string(trim(meta.value.substr(prefix.size())))
                                                     : meta.value;
    }
    if (!r.at_end()) {
        const auto extra = r.next_raw("end of file");
        throw InputError(source, extra.line, "", "unexpected content after the metadata line: " + harness::quoted(extra.value));
    }
    return v;
}

SearchVector read_search_parameters(const std::string& path) {
    auto in = open_input(path);
    return parse_search_parameters(in, path);
}

SearchVector search_vector_from_arguments(int declared_count, const std::vector<std::string>& tokens) {
    SearchVector v;
    v.source = "command line";
    if (declared_count < 0)
        throw InputError(v.source, 0, "--np", "must be 0 or more, found " + std::to_string(declared_count));
    if (static_cast<int>(tokens.size()) != declared_count)
        throw InputError(v.source, 0, "-p",
                         "--np declares " + std::to_string(declared_count) + " values but -p gives " +
                             std::to_string(tokens.size()));
    for (const auto& t : tokens) v.values.push_back(parse_double(t, v.source, 0, "-p"));
    return v;
}

int optimized_parameter_count(const AstronomyParameters& ap) {
    int n = 0;
    for (int f : ap.optimize_background) n += f != 0;
    for (const auto& s : ap.streams) {
        n += s.optimize_weight != 0;
        for (int f : s.optimize) n += f != 0;
    }
    return n;
}

std::string vector_slot(const std::string& key, int repeat, int index) {
    return key + "#" + std::to_string(repeat) + "[" + std::to_string(index) + "]";
}

void apply_search_vector(AstronomyParameters& ap, const SearchVector& v) {
    const int needed = optimized_parameter_count(ap);
    if (static_cast<int>(v.values.size()) != needed)
        throw InputError(v.source, 0, "parameters",
                         "the vector has " + std::to_string(v.values.size()) + " values but " + ap.source +
                             " sets " + std::to_string(needed) + " optimize flags");
    std::size_t k = 0;
    const auto mark = [&](const std::string& key, std::size_t repeat, std::size_t index) {
        ap.from_vector[vector_slot(key, static_cast<int>(repeat), static_cast<int>(index))] = {v.source, static_cast<int>(k)};
    };
    for (std::size_t i = 0; i < ap.background_parameters.size(); ++i)
        if (ap.optimize_background[i]) mark("background_parameters", 0, i), ap.background_parameters[i] = v.values[k++];
    for (std::size_t r = 0; r < ap.streams.size(); ++r) {
        auto& s = ap.streams[r];
        if (s.optimize_weight) mark("stream_weight", r, 0), s.weight = v.values[k++];
        for (std::size_t j = 0; j < s.parameters.size(); ++j)
            if (s.optimize[j]) mark("stream_parameters", r, j), s.parameters[j] = v.values[k++];
    }
}

}  // namespace mwsep::model
