// `ryoo pns`: the stochastic Petri-net simulation, one trajectory per thread, with at most --caps trajectories
// resident at once (the paper's global-memory capacity emulated). The tokens per place summed over the
// trajectories and the firings of each GPU variant and cap must equal the CPU's exactly before timing.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "harness/check.hpp"
#include "harness/device_memory.hpp"
#include "harness/host_memory.hpp"
#include "ryoo/app/commands.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/cpu/pns.hpp"
#include "ryoo/cuda/app_run.hpp"

namespace ryoo::app {
namespace {

using harness::check;
namespace opt = harness::option;

class Pns final : public Application {
public:
    explicit Pns(AppRun& run) : run_(run) {
        (void)run.size_choice();  // a bad --size is named before the options below
        const harness::Options& o = run.options();
        p_.edge = static_cast<int>(o.integer("--edge", 8, 2, 15));
        p_.steps = static_cast<std::uint32_t>(run.sized("--steps", 256, 8192, 1, 1LL << 30));
        p_.trajectories = static_cast<std::uint32_t>(run.sized("--trajectories", 512, 65536, 1, 1LL << 26));
        p_.seed = static_cast<std::uint32_t>(o.integer("--seed", 1, 0, 0xffffffffLL));
        for (const auto& t : split_names(o.text("--caps", "all"), {"all"}, "--caps")) {
            std::uint32_t cap = p_.trajectories;
            if (t != "all") {
                const harness::Options one({"--caps", t}, {{"--caps"}}, "ryoo pns");
                cap = static_cast<std::uint32_t>(one.integer("--caps", 1, 1, 1LL << 26));
            }
            caps_.push_back(cap);
            cap_of_[parameter(cap)] = cap;
        }
        places_ = p_.places();
        most_ = *std::max_element(caps_.begin(), caps_.end());
    }

    std::vector<std::string> variant_names() const override { return pns_variants().name_list(); }

    void check_before_work() override {
        harness::check_host_bytes(run_.options(), "--trajectories", 2.0 * places_ * static_cast<double>(p_.trajectories) + 8.0 * most_,
                                  "the CPU's and a download's markings");
    }

    void prepare() override {
        cpu_state_.resize(static_cast<std::size_t>(places_) * p_.trajectories);
        cpu_firings_.resize(p_.trajectories);
    }

    CpuBaseline cpu() override {
        CpuBaseline c;
        c.work = steps();
        c.kernel = [this] { simulate(); };
        c.application = [this] {
            reference_ = PnsResult{};
            simulate();
            pns_accumulate(reference_, cpu_state_.data(), cpu_firings_.data(), p_.trajectories, places_);
        };
        c.untimed = [this] { reference_ = pns_cpu(p_); };
        return c;
    }

    void check_reference() override {
        std::uint64_t tokens = 0;
        for (auto t : reference_.tokens) tokens += t;
        if (tokens != static_cast<std::uint64_t>(places_) * p_.trajectories) run_.failed("cpu", "tokens were not conserved");
    }

    void upload() override {
        state_ = run_.memory().allocate<std::uint8_t>(static_cast<std::size_t>(places_) * most_, "allocate the markings");
        firings_ = run_.memory().allocate<std::uint32_t>(most_, "allocate the firing counts");
        h_state_.resize(static_cast<std::size_t>(places_) * most_);
        h_firings_.resize(most_);
    }

    std::vector<std::string> parameters() const override {
        std::vector<std::string> out;
        for (const std::uint32_t cap : caps_) out.push_back(parameter(cap));
        return out;
    }

    GpuCheck check_variant(const std::string& name, const std::string& parameter) override {
        const PnsVariant* v = &pns_variants().find(name);
        const std::uint32_t cap = cap_of_.at(parameter);
        const cudaStream_t s = run_.stream();
        const auto launches = [this, v, cap, s] {
            for (std::uint32_t first = 0; first < p_.trajectories; first += cap)
                v->run(p_.edge, p_.seed, p_.steps, first, std::min(cap, p_.trajectories - first), state_, firings_, s);
        };
        // The application: the launches, each followed by its downloads and the host's accumulation.
        const auto application = [this, v, cap, s] {
            PnsResult r;
            for (std::uint32_t first = 0; first < p_.trajectories; first += cap) {
                const std::uint32_t count = std::min(cap, p_.trajectories - first);
                v->run(p_.edge, p_.seed, p_.steps, first, count, state_, firings_, s);
                download(count);
                check(cudaStreamSynchronize(s), "finish a launch");
                pns_accumulate(r, h_state_.data(), h_firings_.data(), count, places_);
            }
            return r;
        };
        if (!(application() == reference_)) return GpuCheck::wrong("the tokens per place or the firings differ from the CPU's");
        GpuParts p;
        p.checked = "exact";
        p.work = steps();
        p.kernel = launches;
        p.application = [application] { (void)application(); };
        p.transfer = [this, cap] {
            for (std::uint32_t first = 0; first < p_.trajectories; first += cap) download(std::min(cap, p_.trajectories - first));
        };
        p.transfer_bytes = (places_ + 4.0) * p_.trajectories;
        return GpuCheck::passed(std::move(p));
    }

private:
    static std::string parameter(std::uint32_t cap) { return "cap=" + std::to_string(cap); }
    /// Steps of all trajectories.
    double steps() const { return static_cast<double>(p_.steps) * p_.trajectories; }
    /// Every trajectory on the CPU, its final marking and firings kept as the GPU leaves them.
    void simulate() {
        std::vector<std::uint8_t> m(places_);
        for (std::uint32_t t = 0; t < p_.trajectories; ++t) {
            cpu_firings_[t] = pns_trajectory_cpu(p_, t, m.data());
            for (int q = 0; q < places_; ++q) cpu_state_[static_cast<std::size_t>(q) * p_.trajectories + t] = m[q];
        }
    }
    /// Enqueues the downloads of one launch's @p count markings and firings.
    void download(std::uint32_t count) {
        const cudaStream_t s = run_.stream();
        check(cudaMemcpyAsync(h_state_.data(), state_, static_cast<std::size_t>(places_) * count, cudaMemcpyDeviceToHost, s),
              "download the markings");
        check(cudaMemcpyAsync(h_firings_.data(), firings_, sizeof(std::uint32_t) * count, cudaMemcpyDeviceToHost, s), "download the firings");
    }

    AppRun& run_;
    PnsProblem p_;
    std::vector<std::uint32_t> caps_;
    std::map<std::string, std::uint32_t> cap_of_;
    int places_ = 0;
    std::uint32_t most_ = 0;
    PnsResult reference_;
    std::vector<std::uint8_t> cpu_state_;
    std::vector<std::uint32_t> cpu_firings_;
    std::uint8_t* state_ = nullptr;
    std::uint32_t* firings_ = nullptr;
    std::vector<std::uint8_t> h_state_;
    std::vector<std::uint32_t> h_firings_;
};

}  // namespace

int command_pns(const Args& args) {
    return run_application<Pns>(
        args, {"ryoo pns",
               "pns",
               "steps",
               {opt::value("--edge", "N", "the torus net's edge (edge x edge), 2 to 15", "8"),
                opt::value("--steps", "N", "steps of each trajectory", "256 with --size small, 8192 with --size large"),
                opt::value("--trajectories", "N", "trajectories, one per GPU thread",
                           "512 with --size small, 65536 with --size large"),
                opt::value("--caps", "all|N,M,...",
                           "the most trajectories resident at once, each cap run on its own (all: every trajectory)",
                           "all"),
                opt::value("--seed", "N", "the seed of the simulation's random numbers", "1")},
               "The stochastic Petri-net simulation (an edge x edge torus net, one trajectory per thread): the CPU, "
               "then each GPU variant with at most --caps trajectories resident at once (the state buffer holds that "
               "many; the rest run in further launches: the paper's global-memory capacity emulated). The tokens per "
               "place summed over the trajectories and the firings must equal the CPU's exactly before timing. Parts: "
               "kernel (every launch), application (launches, downloads, accumulation), transfer (the downloads). "
               "Rates in Gsteps/s."});
}

}  // namespace ryoo::app
