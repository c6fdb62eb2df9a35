#include "mwsep/fit/optimizer.hpp"

#include <nlopt.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <boost/archive/text_iarchive.hpp>
#include <boost/archive/text_oarchive.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>
#include <pagmo/algorithm.hpp>
#include <pagmo/algorithms/cmaes.hpp>
#include <pagmo/algorithms/de.hpp>
#include <pagmo/algorithms/pso_gen.hpp>
#include <pagmo/batch_evaluators/member_bfe.hpp>
#include <pagmo/bfe.hpp>
#include <pagmo/population.hpp>
#include <pagmo/problem.hpp>
#include <pagmo/s11n.hpp>

#include "harness/atomic_file.hpp"
#include "harness/threads.hpp"
#include "mwsep/fit/fit_checkpoint.hpp"
#include "mwsep/fit/hessian.hpp"
#include "mwsep/fit/thesis_search.hpp"
#include "mwsep/fit/cma_search.hpp"

namespace mwsep::fit {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// The value a candidate without a finite likelihood gets: worse than any likelihood can be (the mean
/// log10 probability is at least the -241 of the zero-probability penalties).
constexpr double invalid_fitness = 1e3;

/// What every copy of the problem shares: the evaluator and the counts.
struct Shared {
    BatchEvaluator* evaluator = nullptr;
    long long evaluations = 0;
    long long invalid = 0;
    double seconds = 0;

    /// Fitnesses (-L, or the penalty) of @p batch.
    std::vector<double> fitness(const Batch& batch) {
        const auto t0 = Clock::now();
        auto l = evaluator->evaluate(batch);
        seconds += seconds_since(t0);
        evaluations += static_cast<long long>(batch.size());
        for (double& v : l) {
            if (std::isnan(v)) ++invalid;
            v = std::isnan(v) ? invalid_fitness : -v;
        }
        return l;
    }
};

/// The search's coordinates: every parameter scaled to [0, 1] by its box, u = (x - lower) / (upper - lower).
/// Parameters whose ranges differ by orders of magnitude (a weight, a distance in kpc, an angle) then
/// share one scale, so that a swarm's velocities, CMA-ES's step size and the polish's trust region
/// mean the same fraction of every box.
struct UnitBox {
    const FitSpace* space = nullptr;

    std::vector<double> to_x(const std::vector<double>& u) const {
        std::vector<double> x(u.size());
        for (std::size_t i = 0; i < u.size(); ++i) x[i] = space->lower[i] + u[i] * (space->upper[i] - space->lower[i]);
        return x;
    }
    std::vector<double> to_u(const std::vector<double>& x) const {
        std::vector<double> u(x.size());
        for (std::size_t i = 0; i < x.size(); ++i) u[i] = (x[i] - space->lower[i]) / (space->upper[i] - space->lower[i]);
        return u;
    }
};

/// The likelihood as a pagmo problem in the unit box: minimise -L. Copies share one Shared.
struct LikelihoodProblem {
    LikelihoodProblem() = default;
    LikelihoodProblem(Shared* shared, const FitSpace* space) : shared_(shared), box_{space} {}

    pagmo::vector_double fitness(const pagmo::vector_double& u) const { return {shared_->fitness({box_.to_x(u)})[0]}; }

    /// pagmo's member_bfe calls this with every candidate of a generation, concatenated.
    pagmo::vector_double batch_fitness(const pagmo::vector_double& flat) const {
        const std::size_t n = box_.space->size();
        Batch batch;
        for (std::size_t at = 0; at < flat.size(); at += n)
            batch.push_back(box_.to_x(std::vector<double>(flat.begin() + at, flat.begin() + at + n)));
        return shared_->fitness(batch);
    }

    std::pair<pagmo::vector_double, pagmo::vector_double> get_bounds() const {
        const std::size_t n = box_.space->size();
        return {pagmo::vector_double(n, 0.0), pagmo::vector_double(n, 1.0)};
    }
    pagmo::thread_safety get_thread_safety() const { return pagmo::thread_safety::none; }
    std::string get_name() const { return "mwsep likelihood"; }

private:
    Shared* shared_ = nullptr;
    UnitBox box_;
};

/// The polish's initial trust region in the unit box (BOBYQA's first steps), and its stopping rule: a
/// change of the mean log10 likelihood below 1e-12 between steps, far below the 0.5 / (N ln 10) that one
/// unit of ln likelihood is worth for any catalogue of fewer than 10^11 stars.
constexpr double polish_initial_step = 0.05;
constexpr double polish_ftol_abs = 1e-12;

pagmo::algorithm make_algorithm(const FitOptions& o) {
    // One generation per evolve call, so that the fit can report, checkpoint and stop between
    // generations; the algorithms that adapt state across generations keep it (memory = true).
    if (o.algorithm == "pso") {
        if (o.population < 2) throw std::invalid_argument("pso needs a population of at least 2");
        pagmo::pso_gen a(1u, 0.7298, 2.05, 2.05, 0.5, 5u, 2u, 4u, true, o.seed);
        a.set_bfe(pagmo::bfe{pagmo::member_bfe{}});
        return pagmo::algorithm{a};
    }
    if (o.algorithm == "de") {
        if (o.population < 5) throw std::invalid_argument("de needs a population of at least 5");
        return pagmo::algorithm{pagmo::de(1u, 0.8, 0.9, 2u, 0.0, 0.0, o.seed)};
    }
    if (o.algorithm == "cmaes") {
        if (o.population < 5) throw std::invalid_argument("cmaes needs a population of at least 5");
        return pagmo::algorithm{pagmo::cmaes(1u, -1, -1, -1, -1, cma_initial_step, 0.0, 0.0, true, true, o.seed)};
    }
    throw std::invalid_argument("unknown algorithm '" + o.algorithm + "' (expected pso, de or cmaes)");
}

}  // namespace

bool is_own_search(const std::string& algorithm) { return is_thesis_algorithm(algorithm) || algorithm == cma_batch_name; }

std::string resumable_algorithms() {
    std::string out;
    for (const auto& name : algorithm_names)
        if (name != "pso") out += (out.empty() ? "" : ", ") + name;
    return out;
}

namespace {

/// What a checkpoint belongs to: the search's own settings and the space (names, bounds, start), then
/// what the caller adds (FitOptions::identity: the inputs' contents, the binning, the evaluator).
std::vector<IdentityItem> identity(const FitSpace& space, const FitOptions& o) {
    const auto num = [](double v) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.17g", v);
        return std::string(buf);
    };
    std::vector<IdentityItem> id = {{"algorithm", o.algorithm},
                                    {"population", std::to_string(o.population)},
                                    {"seed", std::to_string(o.seed)},
                                    {"generations", std::to_string(o.generations)}};
    std::string bounds, start;
    for (std::size_t i = 0; i < space.size(); ++i) {
        bounds += (i ? "," : "") + space.names[i] + ":" + num(space.lower[i]) + ":" + num(space.upper[i]);
        start += (i ? "," : "") + num(space.start[i]);
    }
    id.emplace_back("bounds", bounds);
    id.emplace_back("start", start);
    if (is_thesis_algorithm(o.algorithm)) {  // the thesis searches' own settings (pagmo's are in its archive)
        id.emplace_back("gradient-step", num(o.gradient_step));
        id.emplace_back("in-flight", std::to_string(o.in_flight));
        id.emplace_back("late", num(o.late_fraction));
        id.emplace_back("lost", num(o.lost_fraction));
        id.emplace_back("max-delay", std::to_string(o.max_delay));
    }
    for (const auto& item : o.identity) id.push_back(item);
    return id;
}

/// pagmo's archive of the algorithm (its generator and, for CMA-ES, the adapted state).
std::string save_algorithm(const pagmo::algorithm& a) {
    std::ostringstream out;
    {
        boost::archive::text_oarchive archive(out);
        archive << a;
    }
    return out.str();
}

pagmo::algorithm load_algorithm(const std::string& text) {
    std::istringstream in(text);
    boost::archive::text_iarchive archive(in);
    pagmo::algorithm a;
    archive >> a;
    return a;
}

/// Whether pagmo can read @p text back, tried in a child process first: a checkpoint's algorithm state is
/// pagmo's own archive, and a forged one (a valid checksum over wrong sizes) can make the library abort
/// inside its matrix code rather than throw. Empty when it reads; else what went wrong.
std::string try_algorithm_in_child(const std::string& text) {
    std::fflush(nullptr);
    const pid_t child = ::fork();
    if (child < 0) return {};  // cannot isolate: read it in this process (the checksum already matched)
    if (child == 0) {
        int code = 0;
        try {
            (void)load_algorithm(text);
        } catch (...) {
            code = 3;
        }
        ::_exit(code);
    }
    int status = 0;
    while (::waitpid(child, &status, 0) < 0)
        if (errno != EINTR) return {};
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
    if (WIFSIGNALED(status)) return "reading it ends the reader with signal " + std::to_string(WTERMSIG(status));
    return "it is not a readable archive";
}

void write_checkpoint(const std::string& path, const FitCheckpointData& c) {
    const std::string text = format_fit_checkpoint(c);
    harness::write_file_atomically(path, [&](std::ostream& out) { out << text; });
}

/// Polishes that run side by side, each on a thread of its own, with their evaluations gathered into one
/// batch: whenever every running polish waits for a fitness, the thread that serves (the one that called
/// run_fit, the only one that calls the evaluator, as in the global search: MPI and the devices see the same
/// thread) evaluates their candidates together, so that a GPU evaluator prepares one candidate while the
/// device works on the other, and two devices take one each. Each polish's candidates and their fitnesses
/// are what they would be one polish after the other (an evaluation depends on its candidate alone), so the
/// result is the same, bit for bit; only the order of the evaluations differs.
class PolishBatcher {
public:
    PolishBatcher(Shared& shared, std::size_t polishes) : shared_(shared), slots_(polishes) {}

    /// Polish @p who begins (its thread calls fitness() from now on, then finished()).
    void begin(std::size_t who) {
        const std::lock_guard lock(mutex_);
        slots_[who].state = Slot::running;
    }
    /// Polish @p who's fitness of @p x, once the serving thread has evaluated it; rethrows its failure.
    double fitness(std::size_t who, std::vector<double> x) {
        std::unique_lock lock(mutex_);
        Slot& s = slots_[who];
        s.x = std::move(x), s.waiting = true, s.answered = false;
        changed_.notify_all();
        changed_.wait(lock, [&] { return s.answered; });
        if (s.error) std::rethrow_exception(s.error);
        return s.f;
    }
    /// Polish @p who has returned (or failed).
    void finished(std::size_t who) {
        const std::lock_guard lock(mutex_);
        slots_[who].state = Slot::done;
        changed_.notify_all();
    }
    /// On the calling thread: evaluates the gathered candidates until every polish has finished.
    void serve() {
        std::unique_lock lock(mutex_);
        for (;;) {
            changed_.wait(lock, [&] { return all_done() || ready(); });
            if (all_done()) return;
            std::vector<std::size_t> who;
            Batch batch;
            for (std::size_t i = 0; i < slots_.size(); ++i)
                if (slots_[i].state == Slot::running) who.push_back(i), batch.push_back(slots_[i].x);
            lock.unlock();
            std::vector<double> f;
            std::exception_ptr error;
            try {
                f = shared_.fitness(batch);
            } catch (...) {
                error = std::current_exception();
            }
            lock.lock();
            for (std::size_t k = 0; k < who.size(); ++k) {
                Slot& s = slots_[who[k]];
                s.waiting = false, s.answered = true, s.error = error;
                if (!error) s.f = f[k];
            }
            changed_.notify_all();
        }
    }

private:
    struct Slot {
        enum { idle, running, done } state = idle;
        bool waiting = false;   ///< a candidate is posted and not yet evaluated
        bool answered = false;  ///< its fitness (or the failure) is in
        std::vector<double> x;
        double f = 0;
        std::exception_ptr error;
    };
    bool all_done() const {
        return std::all_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.state == Slot::done; });
    }
    /// Some polish runs, and every running one waits for a fitness.
    bool ready() const {
        bool any = false;
        for (const Slot& s : slots_) {
            if (s.state != Slot::running) continue;
            if (!s.waiting) return false;
            any = true;
        }
        return any;
    }
    Shared& shared_;
    std::vector<Slot> slots_;
    std::mutex mutex_;
    std::condition_variable changed_;
};

/// The polish: NLopt's BOBYQA (Nelder-Mead for one parameter) from @p u within the unit box.
struct PolishState {
    Shared* shared;
    UnitBox box;
    std::vector<double> best_u;
    double best_f = std::numeric_limits<double>::infinity();
    nlopt_opt opt = nullptr;   ///< the optimisation, stopped when the evaluator fails
    std::exception_ptr fault;  ///< the evaluator's failure (a device fault), rethrown after NLopt returns
    PolishBatcher* batcher = nullptr;  ///< where its evaluations go when polishes run side by side; else shared
    std::size_t slot = 0;              ///< its place in @ref batcher
    long long evaluations = 0;         ///< evaluations it made
};

double polish_objective(unsigned n, const double* u, double* gradient, void* data) {
    (void)gradient;  // derivative-free algorithms pass none
    auto& s = *static_cast<PolishState*>(data);
    // NLopt is C: an exception must not unwind through it. A failure of the evaluator stops the polish
    // (nlopt_force_stop) and is rethrown once nlopt_optimize has returned.
    try {
        std::vector<double> v(u, u + n);
        ++s.evaluations;
        const double f = s.batcher ? s.batcher->fitness(s.slot, s.box.to_x(v)) : s.shared->fitness({s.box.to_x(v)})[0];
        if (f < s.best_f) s.best_f = f, s.best_u = v;
        return f;
    } catch (...) {
        if (!s.fault) s.fault = std::current_exception();
        nlopt_force_stop(s.opt);
        return invalid_fitness;
    }
}

/// Returns how NLopt stopped: "tolerance", "evaluation limit" or "failure"; @p evaluations: how many it made.
/// With @p batcher, its evaluations go there, as polish @p slot.
std::string polish(const FitSpace& space, Shared& shared, unsigned max_evaluations, std::vector<double>& u, double& f,
                   long long& evaluations, PolishBatcher* batcher = nullptr, std::size_t slot = 0) {
    const unsigned n = static_cast<unsigned>(space.size());
    nlopt_opt opt = nlopt_create(n >= 2 ? NLOPT_LN_BOBYQA : NLOPT_LN_NELDERMEAD, n);
    if (!opt) throw std::runtime_error("NLopt could not create the polish");
    PolishState state{&shared, UnitBox{&space}, u, f, opt, nullptr, batcher, slot, 0};
    const std::vector<double> zero(n, 0.0), one(n, 1.0);
    nlopt_set_lower_bounds(opt, zero.data());
    nlopt_set_upper_bounds(opt, one.data());
    nlopt_set_min_objective(opt, polish_objective, &state);
    nlopt_set_maxeval(opt, static_cast<int>(max_evaluations));
    nlopt_set_initial_step1(opt, polish_initial_step);
    nlopt_set_ftol_abs(opt, polish_ftol_abs);
    nlopt_set_xtol_rel(opt, 1e-10);
    std::vector<double> start = u;
    double minimum = f;
    const nlopt_result status = nlopt_optimize(opt, start.data(), &minimum);
    nlopt_destroy(opt);
    evaluations = state.evaluations;
    if (state.fault) std::rethrow_exception(state.fault);  // the evaluator failed: the fit stops
    // A failed polish (NLopt's negative codes) keeps the point it began from.
    if (status > 0 && state.best_f < f) u = state.best_u, f = state.best_f;
    return status == NLOPT_MAXEVAL_REACHED ? "evaluation limit" : status > 0 ? "tolerance" : "failure";
}

}  // namespace

FitResult run_fit(const FitSpace& space, BatchEvaluator& evaluator, const FitOptions& o, std::size_t stars,
                  const std::function<void(const GenerationRecord&)>& on_generation) {
    std::vector<double> start = space.start;
    for (std::size_t i = 0; i < start.size(); ++i) start[i] = std::clamp(start[i], space.lower[i], space.upper[i]);
    const auto t0 = Clock::now();
    FitResult r;
    Shared shared;
    shared.evaluator = &evaluator;
    // The evaluator's phase sums at the previous record (first: before the initial population is evaluated);
    // each record takes the growth since.
    std::map<std::string, double> phases_before;
    for (const auto& [name, seconds] : evaluator.phase_seconds()) phases_before[name] = seconds;
    const pagmo::problem problem{LikelihoodProblem(&shared, &space)};
    const UnitBox box{&space};
    if (o.algorithm == "pso" && !o.checkpoint.empty())
        throw std::invalid_argument("pso cannot be checkpointed: pagmo's pso_gen leaves its swarm's memory (velocities, "
                                    "best positions) out of its saved state, so a resumed swarm would not continue the "
                                    "same trajectory; use another algorithm (" + resumable_algorithms() + ") for a "
                                    "resumable fit");
    // The project's own searches in place of pagmo's, in the same unit box with the same evaluations: the thesis's
    // methods (fit/thesis_search.hpp) and the batched CMA-ES (fit/cma_search.hpp).
    const bool own = is_own_search(o.algorithm);
    std::unique_ptr<GenerationSearch> search;
    if (own) {
        UnitEvaluate evaluate = [&shared, &box](const Batch& unit) {
            Batch x;
            for (const auto& u : unit) x.push_back(box.to_x(u));
            auto f = shared.fitness(x);
            for (double& v : f) v = v == invalid_fitness ? std::numeric_limits<double>::quiet_NaN() : -v;
            return f;
        };
        if (o.algorithm == cma_batch_name) {
            search = make_cma_search(space.size(), o.population, o.seed, std::move(evaluate));
        } else {
            ThesisSettings ts;
            ts.algorithm = o.algorithm, ts.population = o.population, ts.seed = o.seed, ts.gradient_step = o.gradient_step;
            ts.in_flight = o.in_flight, ts.late_fraction = o.late_fraction, ts.lost_fraction = o.lost_fraction;
            ts.max_delay = o.max_delay;
            search = make_thesis_search(ts, space.size(), std::move(evaluate));
        }
    }
    pagmo::algorithm algorithm = own ? pagmo::algorithm{} : make_algorithm(o);
    const std::vector<IdentityItem> id = identity(space, o);

    pagmo::population pop;
    unsigned generation = 0;
    // The best point seen so far (pagmo's champion of the uninterrupted population): a resumed population
    // knows only its own members, and CMA-ES replaces all of them every generation, so the champion is
    // kept here and saved with the checkpoint.
    std::vector<double> champion_u;
    double champion_f = std::numeric_limits<double>::infinity();
    std::vector<GenerationRecord> earlier;  // a resumed fit's generations before this run
    if (o.resume && !o.checkpoint.empty() && std::filesystem::exists(o.checkpoint)) {
        const FitCheckpointShape shape{space.size(), o.population, o.generations, invalid_fitness, own};
        FitCheckpointData c = read_fit_checkpoint(o.checkpoint, shape);
        const std::string differs = identity_difference(c.identity, id);
        if (!differs.empty())
            throw std::runtime_error(o.checkpoint + ": the checkpoint belongs to another fit: its " + differs +
                                     " differs; give another --checkpoint file, or delete this one to start afresh");
        if (own) {
            // The search's own text, read by its own strict parser (no library code that could abort on it).
            std::vector<std::pair<std::vector<double>, double>> members;
            for (std::size_t i = 0; i < c.x.size(); ++i) members.emplace_back(c.x[i], -c.f[i]);
            try {
                search->load(c.algorithm, members);
            } catch (const std::exception& e) {
                throw std::runtime_error(o.checkpoint + ": the algorithm's saved state cannot be read (" + e.what() +
                                         "): the file is damaged");
            }
        } else {
            const std::string unreadable = try_algorithm_in_child(c.algorithm);
            if (!unreadable.empty())
                throw std::runtime_error(o.checkpoint + ": the algorithm's saved state cannot be read (" + unreadable +
                                         "): the file is damaged");
            try {
                algorithm = load_algorithm(c.algorithm);
            } catch (const std::exception& e) {
                throw std::runtime_error(o.checkpoint + ": the algorithm's saved state cannot be read (" + e.what() + ")");
            }
            if (algorithm.get_name() != make_algorithm(o).get_name())
                throw std::runtime_error(o.checkpoint + ": the algorithm's saved state is of " + algorithm.get_name() +
                                         ", not of this fit's " + o.algorithm);
            pop = pagmo::population(problem, 0u, o.seed);
            for (std::size_t i = 0; i < c.x.size(); ++i) pop.push_back(c.x[i], {c.f[i]});
        }
        generation = c.generation;
        shared.evaluations = c.evaluations;
        shared.invalid = c.invalid;
        champion_u = c.champion_x;
        champion_f = c.champion_f;
        for (const auto& h : c.history)
            earlier.push_back({static_cast<unsigned>(h[0]), static_cast<long long>(h[1]), h[2], h[3]});
        r.resumed_from = generation;
    } else if (own) {
        search->begin(box.to_u(start), std::numeric_limits<double>::quiet_NaN());
    } else {
        pop = o.algorithm == "pso" ? pagmo::population(problem, pagmo::bfe{pagmo::member_bfe{}}, o.population, o.seed)
                                   : pagmo::population(problem, o.population, o.seed);
        // The start is one of the initial candidates, so that the search never ends worse than it began.
        pop.set_x(0, box.to_u(start));
    }
    // pagmo replaces its champion only by a strictly better point; so does this.
    const auto update_champion = [&] {
        if (own) {
            const double f = std::isfinite(search->best_likelihood()) ? -search->best_likelihood() : invalid_fitness;
            if (champion_u.empty() || f < champion_f) champion_u = search->best(), champion_f = f;
            return;
        }
        if (champion_u.empty() || pop.champion_f()[0] < champion_f)
            champion_u = pop.champion_x(), champion_f = pop.champion_f()[0];
    };
    update_champion();
    r.history = earlier;
    const auto record = [&] {
        GenerationRecord g{generation, shared.evaluations, -champion_f, seconds_since(t0)};
        std::map<std::string, double> phases_now;
        for (const auto& [name, seconds] : evaluator.phase_seconds()) phases_now[name] = seconds;
        const auto grown = [&](const char* name) {
            const auto now = phases_now.find(name);
            if (now == phases_now.end()) return std::numeric_limits<double>::quiet_NaN();
            const auto before = phases_before.find(name);
            return now->second - (before == phases_before.end() ? 0.0 : before->second);
        };
        g.prepare_seconds = grown("prepare");
        g.integral_seconds = grown("integral");
        g.likelihood_seconds = grown("likelihood");
        g.evaluate_seconds = grown("evaluation");
        phases_before = std::move(phases_now);
        r.history.push_back(g);
        if (on_generation) on_generation(g);
    };
    if (r.resumed_from == 0) record();
    unsigned this_run = 0;
    while (generation < o.generations) {
        // An own search that has converged does no more work (a resumed one may have stopped already).
        if (own && !search->stopped_by().empty()) break;
        if (own) (void)search->step();
        else pop = algorithm.evolve(pop);
        ++generation;
        update_champion();
        record();
        if (!o.checkpoint.empty()) {
            FitCheckpointData c;
            c.identity = id;
            c.generation = generation;
            c.evaluations = shared.evaluations;
            c.invalid = shared.invalid;
            if (own) {
                for (const auto& [x, l] : search->members()) c.x.push_back(x), c.f.push_back(-l);
                c.algorithm = search->save();
            } else {
                for (std::size_t i = 0; i < pop.size(); ++i) c.x.push_back(pop.get_x()[i]), c.f.push_back(pop.get_f()[i][0]);
                c.algorithm = save_algorithm(algorithm);
            }
            c.champion_x = champion_u;
            c.champion_f = champion_f;
            for (const auto& h : r.history)
                c.history.push_back({double(h.generation), double(h.evaluations), h.best, h.seconds});
            write_checkpoint(o.checkpoint, c);
        }
        if (own && !search->stopped_by().empty()) break;
        const bool asked = o.stop_requested && generation < o.generations && o.stop_requested();
        if (asked || (o.stop_after > 0 && ++this_run >= o.stop_after && generation < o.generations)) {
            r.completed = false;
            break;
        }
    }
    r.generations = generation;
    if (own) r.stopped_by = search->stopped_by();
    r.global_evaluations = shared.evaluations;
    r.global_seconds = seconds_since(t0);
    std::vector<double> best_u = champion_u;
    double f = champion_f;
    r.global_likelihood = -f;

    // The polish climbs from the global search's best; from the start too (unless that is the same point),
    // because a global search over a wide box can settle on another mode than the one the start lies in,
    // and a fit should never end below what a local search from its start reaches. The better one is kept.
    if (r.completed && o.polish_evaluations > 0) {
        const auto t1 = Clock::now();
        const long long before = shared.evaluations;
        // Each polish: where it starts, and what it reached and how.
        struct Climb {
            const char* from = "";
            std::vector<double> u;
            double f = 0;
            double begin = 0;
            long long evaluations = 0;
            std::string stopped;
        };
        std::vector<Climb> climbs;
        const std::vector<double> from_global = best_u, from_start = box.to_u(start);
        const auto add = [&](const char* from, const std::vector<double>& u, double fu) {
            Climb c;
            c.from = from, c.u = u, c.f = fu;
            c.begin = std::isfinite(fu) ? -fu : std::numeric_limits<double>::quiet_NaN();
            climbs.push_back(std::move(c));
        };
        add("global best", from_global, f);
        if (o.polish_from_start && from_start != from_global) add("start", from_start, std::numeric_limits<double>::infinity());
        const auto climb = [&](Climb& c, PolishBatcher* batcher, std::size_t slot) {
            c.stopped = polish(space, shared, o.polish_evaluations, c.u, c.f, c.evaluations, batcher, slot);
        };
        // Side by side on threads of their own (PolishBatcher), unless asked not to or no thread starts; then
        // one after the other on this thread. The outcome is the same.
        bool together = o.polishes_together && climbs.size() > 1;
        if (together) {
            PolishBatcher batcher(shared, climbs.size());
            std::atomic<std::size_t> next{0};
            std::atomic<bool> go{false};  // once every thread that could start has: each takes a polish at once
            harness::detail::FirstFailure failure;
            const auto worker = [&] {
                while (!go.load()) std::this_thread::yield();
                harness::detail::take_indices(next, climbs.size(), [&](std::size_t i) {
                    batcher.begin(i);
                    struct Finished {  // however the polish ends, so that the serving thread stops waiting for it
                        PolishBatcher& batcher;
                        std::size_t i;
                        ~Finished() { batcher.finished(i); }
                    } finished{batcher, i};
                    climb(climbs[i], &batcher, i);
                }, failure);
            };
            std::vector<std::thread> pool;
            // The calling thread serves the evaluations; the polishes need a thread of their own each (one
            // that started runs the other polishes in turn).
            const int started = harness::detail::start_workers(pool, static_cast<int>(climbs.size()) + 1, worker, "mwsep fit");
            go.store(true);
            if (started > 1) {
                batcher.serve();
                for (auto& t : pool) t.join();
                failure.rethrow();  // the evaluator failed: the fit stops
            } else {
                together = false;
            }
        }
        if (!together)
            for (Climb& c : climbs) climb(c, nullptr, 0);
        // The better one is kept, in the order the polishes are listed.
        for (Climb& c : climbs) {
            r.polishes.push_back({c.from, c.begin, -c.f, c.evaluations, c.stopped});
            if (c.f < f) best_u = c.u, f = c.f;
        }
        r.polish_evaluations = shared.evaluations - before;
        r.polish_seconds = seconds_since(t1);
    }
    r.best = box.to_x(best_u);
    r.likelihood = -f;
    r.sigma.assign(space.size(), std::numeric_limits<double>::quiet_NaN());
    if (r.completed && o.uncertainties) {
        const auto t2 = Clock::now();
        const auto work_before = evaluator.integral_work();
        const auto integral_seconds = [&evaluator] {
            for (const auto& [name, seconds] : evaluator.phase_seconds())
                if (name == "integral") return seconds;
            return std::numeric_limits<double>::quiet_NaN();
        };
        const double integral_before = integral_seconds();
        std::vector<double> width(space.size());
        for (std::size_t i = 0; i < space.size(); ++i) width[i] = space.upper[i] - space.lower[i];
        const Uncertainty u = uncertainty_at(evaluator, r.best, width, o.hessian_step, stars);
        r.hessian_evaluations = static_cast<long long>(u.evaluations);
        r.sigma = u.sigma;
        r.covariance = u.covariance;
        r.positive_definite = u.positive_definite;
        r.scaled_fisher_eigenvalues = u.scaled_fisher_eigenvalues;
        r.weakest_direction = u.weakest_direction;
        r.scaled_fisher_eigenvectors = u.scaled_fisher_eigenvectors;
        r.hessian_seconds = seconds_since(t2);
        r.hessian_integral_seconds = integral_seconds() - integral_before;
        if (const auto after = evaluator.integral_work(); after && work_before) {
            IntegralWork w = *after;
            w.full -= work_before->full, w.partial -= work_before->partial, w.none -= work_before->none;
            w.components -= work_before->components, w.reused -= work_before->reused;
            r.hessian_integral_work = w;
        }
    }
    r.evaluations = shared.evaluations + r.hessian_evaluations;
    r.invalid_evaluations = shared.invalid;
    r.evaluation_seconds = shared.seconds + r.hessian_seconds;
    r.phase_seconds = evaluator.phase_seconds();
    r.integral_work = evaluator.integral_work();
    r.seconds = seconds_since(t0);
    return r;
}

}  // namespace mwsep::fit
