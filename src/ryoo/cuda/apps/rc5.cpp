// `ryoo rc5`: the RC5-72 key search (RC5-32/12/9 against a known plaintext) over a range holding one planted
// key. The CPU searches the first cpu-keys keys, each GPU variant gpu-keys keys; both must find exactly the
// planted key, the GPU's before any timing.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/check.hpp"
#include "harness/device_memory.hpp"
#include "ryoo/app/commands.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/cpu/rc5.hpp"
#include "ryoo/cuda/app_run.hpp"

namespace ryoo::app {
namespace {

using harness::check;
namespace opt = harness::option;

class Rc5 final : public Application {
public:
    explicit Rc5(AppRun& run)
        : run_(run),
          gpu_keys_(static_cast<std::uint64_t>(run.sized("--gpu-keys", 1LL << 22, 1LL << 32, 1024, 1LL << 40))),
          cpu_keys_(static_cast<std::uint64_t>(run.sized("--cpu-keys", 1LL << 16, 1LL << 22, 1024, 1LL << 34))),
          chunk_(static_cast<std::uint64_t>(run.options().integer("--chunk", 1LL << 26, 1024, 1LL << 40))) {
        if (cpu_keys_ > gpu_keys_) throw run.options().error("--cpu-keys", "must not exceed --gpu-keys (the planted key lies in both ranges)");
        seed_ = static_cast<std::uint64_t>(run.options().integer("--seed", 1, 0));
    }

    std::vector<std::string> variant_names() const override { return rc5_variants().name_list(); }

    void prepare() override {
        planted_ = cpu_keys_ / 2 + cpu_keys_ / 7;  // inside both ranges, not at a power of two
        challenge_ = rc5_challenge(seed_, planted_);
        expected_ = Rc5Result{planted_, 1};
    }

    CpuBaseline cpu() override {
        CpuBaseline c;
        c.work = static_cast<double>(cpu_keys_);
        c.kernel = [this] { cpu_result_ = rc5_search_cpu(challenge_, 0, cpu_keys_); };
        c.after_kernel = [this] { kernel_found_ = cpu_result_ == expected_; };
        // The application searches in work units of --chunk keys, as the GPU's does.
        c.application = [this] {
            Rc5Result r;
            for (std::uint64_t first = 0; first < cpu_keys_; first += chunk_) {
                const Rc5Result part = rc5_search_cpu(challenge_, first, std::min(chunk_, cpu_keys_ - first));
                if (part.matches && r.matches == 0) r.first = part.first;
                r.matches += part.matches;
            }
            cpu_result_ = r;
        };
        c.verdict = [this] {
            return CpuVerdict{kernel_found_ && cpu_result_ == expected_, cpu_result_ == expected_, "planted key found"};
        };
        c.untimed = [this] {
            cpu_result_ = rc5_search_cpu(challenge_, 0, cpu_keys_);
            if (!(cpu_result_ == expected_)) run_.failed("cpu", "the CPU search did not find exactly the planted key");
        };
        return c;
    }

    void upload() override { found_ = run_.memory().allocate<Rc5Found>(1, "allocate the search result"); }

    GpuCheck check_variant(const std::string& name, const std::string&) override {
        const Rc5Variant* v = &rc5_variants().find(name);
        const cudaStream_t s = run_.stream();
        const auto search = [this, v, s](std::uint64_t first, std::uint64_t count) {
            check(cudaMemcpyAsync(found_, &none_, sizeof none_, cudaMemcpyHostToDevice, s), "reset the search result");
            v->run(challenge_, first, count, found_, s);
        };
        search(0, gpu_keys_);
        check(cudaMemcpyAsync(&got_, found_, sizeof got_, cudaMemcpyDeviceToHost, s), "download the search result");
        check(cudaStreamSynchronize(s), "run the checked search");
        if (got_.first != planted_ || got_.matches != 1)
            return GpuCheck::wrong("found key " + std::to_string(got_.first) + " (" + std::to_string(got_.matches) + " matches), expected " +
                                   std::to_string(planted_) + " alone");
        const std::uint64_t units = (gpu_keys_ + chunk_ - 1) / chunk_;
        GpuParts p;
        p.checked = "planted key found";
        p.work = static_cast<double>(gpu_keys_);
        p.kernel = [this, search] { search(0, gpu_keys_); };
        p.application = [this, s, search, name] {
            std::uint64_t matches = 0, first_found = ~0ull;
            for (std::uint64_t first = 0; first < gpu_keys_; first += chunk_) {
                search(first, std::min(chunk_, gpu_keys_ - first));
                check(cudaMemcpyAsync(&got_, found_, sizeof got_, cudaMemcpyDeviceToHost, s), "download a work unit's result");
                check(cudaStreamSynchronize(s), "finish a work unit");
                if (got_.matches && matches == 0) first_found = got_.first;
                matches += got_.matches;
            }
            if (first_found != planted_ || matches != 1) throw std::runtime_error(name + ": the work units lost the planted key");
        };
        p.transfer = [this, s, units] {
            for (std::uint64_t u = 0; u < units; ++u) {
                check(cudaMemcpyAsync(found_, &none_, sizeof none_, cudaMemcpyHostToDevice, s), "reset the search result");
                check(cudaMemcpyAsync(&got_, found_, sizeof got_, cudaMemcpyDeviceToHost, s), "download a work unit's result");
            }
        };
        p.transfer_bytes = 2.0 * sizeof got_ * units;
        return GpuCheck::passed(std::move(p));
    }

private:
    AppRun& run_;
    std::uint64_t gpu_keys_, cpu_keys_, chunk_, seed_ = 1, planted_ = 0;
    Rc5Challenge challenge_;
    Rc5Result expected_, cpu_result_;
    bool kernel_found_ = false;
    Rc5Found* found_ = nullptr;
    const Rc5Found none_;
    Rc5Found got_;
};

}  // namespace

int command_rc5(const Args& args) {
    return run_application<Rc5>(
        args, {"ryoo rc5",
               "rc5",
               "keys",
               {opt::value("--gpu-keys", "N", "keys each GPU variant searches, 1024 to 2^40",
                           "2^22 with --size small, 2^32 with --size large"),
                opt::value("--cpu-keys", "N", "keys the CPU searches (the first of the GPU's), 1024 to --gpu-keys",
                           "2^16 with --size small, 2^22 with --size large"),
                opt::value("--chunk", "N", "keys per work unit of the application part", "2^26"),
                opt::value("--seed", "N", "the seed of the planted key", "1")},
               "The RC5-72 key search (RC5-32/12/9 against a known plaintext) over a range holding one planted key: "
               "the CPU (native rotate) searches the first --cpu-keys keys, each GPU variant --gpu-keys keys; both "
               "must find exactly the planted key, and the GPU check runs before any timing. Parts: kernel (one "
               "launch over the range), application (the range in work units of --chunk keys, each launched, its "
               "result downloaded and checked by the host), transfer (the result downloads). Rates in Gkeys/s: the "
               "CPU and the GPU search different ranges, so their speed-up is a ratio of rates."});
}

}  // namespace ryoo::app
