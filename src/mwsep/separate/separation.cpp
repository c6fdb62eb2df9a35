#include "mwsep/separate/separation.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "mwsep/cpu/integrators.hpp"
#include "mwsep/cpu/thread_pool.hpp"
#include "mwsep/likelihood/likelihood.hpp"
#include "mwsep/math/summation.hpp"
#include "mwsep/model/input_error.hpp"

namespace mwsep::separate {

Separation separate(const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars,
                    const model::Integrals& integrals, int threads) {
    likelihood::check_integrals(integrals);
    const auto w = likelihood::mixture_weights(setup.model);
    const std::size_t n = stars.size();
    const std::size_t k = 1 + setup.streams.size();
    Separation out;
    out.components = k;
    // The densities of every star: the function the likelihood uses, star by star (each star's values do not
    // depend on the thread that computed them).
    std::vector<double> dens(n * k);
    constexpr std::size_t chunk = 256;
    cpu::parallel_for((n + chunk - 1) / chunk, cpu::resolve_threads(threads), [&](std::size_t block) {
        const std::size_t end = std::min(n, (block + 1) * chunk);
        for (std::size_t i = block * chunk; i < end; ++i)
            likelihood::star_densities(setup, stars.l[i], stars.b[i], stars.r[i], &dens[i * k]);
    });
    out.probability.assign(n * k, 0.0);
    out.most_likely.assign(n, -1);
    out.expected.assign(k, 0.0);
    out.assigned.assign(k, 0);
    std::vector<math::NeumaierSum> expected(k);
    math::NeumaierSum expected_correct;
    likelihood::LikelihoodAssembly<math::NeumaierSum> sums(w, integrals);
    for (std::size_t i = 0; i < n; ++i) {
        const double* d = &dens[i * k];
        bool zero = false;
        sums.add_star(likelihood::star_log_probability(w, integrals, d, zero), zero, d);
        double* p = &out.probability[i * k];
        if (!likelihood::star_membership(w, integrals, d, p)) {
            ++out.unexplained;
            continue;
        }
        int best = 0;
        for (std::size_t c = 0; c < k; ++c) {
            expected[c].add(p[c]);
            if (p[c] > p[best]) best = static_cast<int>(c);
        }
        out.most_likely[i] = best;
        ++out.assigned[best];
        expected_correct.add(p[best]);
    }
    sums.check_finite();
    out.likelihood = sums.result();
    for (std::size_t c = 0; c < k; ++c) out.expected[c] = expected[c].value();
    out.expected_correct = expected_correct.value();
    return out;
}

std::string component_name(int c) {
    if (c < 0) return "none";
    return c == 0 ? "background" : "stream" + std::to_string(c);
}

Agreement agreement(const Separation& s, const std::vector<int>& truth) {
    if (truth.size() != s.most_likely.size())
        throw std::invalid_argument("the labels name " + std::to_string(truth.size()) + " stars; the catalogue has " +
                                    std::to_string(s.most_likely.size()));
    Agreement a;
    a.stars = truth.size();
    a.confusion.assign(s.components, std::vector<std::size_t>(s.components + 1, 0));
    for (std::size_t i = 0; i < truth.size(); ++i) {
        const int t = truth[i];
        if (t < 0 || static_cast<std::size_t>(t) >= s.components)
            throw std::invalid_argument("star " + std::to_string(i) + " is labelled with component " + std::to_string(t) +
                                        "; the model has components 0 to " + std::to_string(s.components - 1));
        const int m = s.most_likely[i];
        ++a.confusion[t][m < 0 ? s.components : static_cast<std::size_t>(m)];
        a.correct += m == t;
    }
    return a;
}

std::vector<int> read_labels(const std::string& path, std::size_t components) {
    std::ifstream in(path);
    if (!in) throw model::InputError(path, 0, "", "cannot open the labels file");
    std::string line;
    if (!std::getline(in, line) || line != "star,component")
        throw model::InputError(path, 1, "", "expected the header 'star,component' (a file of mwsep generate --labels)");
    std::vector<int> out;
    int number = 1;
    while (std::getline(in, line)) {
        ++number;
        const auto comma = line.find(',');
        const auto whole = [](const std::string& t, long long& v) {
            if (t.empty() || t.size() > 12 || t.find_first_not_of("0123456789") != std::string::npos) return false;
            v = std::stoll(t);
            return true;
        };
        long long index = 0, component = 0;
        if (comma == std::string::npos || !whole(line.substr(0, comma), index) || !whole(line.substr(comma + 1), component))
            throw model::InputError(path, number, "", "expected 'index,component' (two whole numbers), found '" +
                                                          line.substr(0, 80) + "'");
        if (index != static_cast<long long>(out.size()))
            throw model::InputError(path, number, "", "expected star " + std::to_string(out.size()) + ", found " +
                                                          std::to_string(index) + " (stars in catalogue order)");
        if (component >= static_cast<long long>(components))
            throw model::InputError(path, number, "", "component " + std::to_string(component) +
                                                          " is not one of the model's 0 to " +
                                                          std::to_string(components - 1));
        out.push_back(static_cast<int>(component));
    }
    if (out.empty()) throw model::InputError(path, 0, "", "no star is labelled");
    return out;
}

}  // namespace mwsep::separate
