#include "mwsep/cuda/modern_family.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <thread>

#include "mwsep/cuda/device_tables.hpp"
#include "mwsep/likelihood/stream_skipping.hpp"
#include "mwsep/math/exp_lean.hpp"
#include "mwsep/math/summation.hpp"

namespace mwsep::cuda {
namespace {

/// What the modern variants need of one area beyond the cell directions, computed once on the host
/// and uploaded to every device: the folded line of sight and the streams' skip thresholds.
struct ModernHostArea {
    geometry::FoldedLineOfSight los;
    std::vector<double> thresholds;
};

ModernHostArea prepare_host_area(const geometry::IntegrationSetup& s, const geometry::AreaTables& t) {
    ModernHostArea h;
    h.los = geometry::fold_line_of_sight(t);
    // Every core: the thresholds are the same for any number of threads (stream_skipping.hpp).
    h.thresholds = likelihood::stream_skip_thresholds(s, t, h.los, std::max(1u, std::thread::hardware_concurrency()));
    return h;
}

/// The lean variants' tables of one area (ModernArea::folded_rw and the per-group sums and ranges).
void fill_lean_tables(const geometry::FoldedLineOfSight& los, int n_r, ModernArea& a, DeviceMemory& mem) {
    std::vector<double2> rw(los.r_point.size());
    for (std::size_t m = 0; m < rw.size(); ++m) rw[m] = make_double2(los.r_point[m], los.weight[m]);
    a.folded_rw = mem.upload(rw, "upload the interleaved line-of-sight points");
    const std::size_t groups = static_cast<std::size_t>(n_r) * lean_groups;
    std::vector<double> weight(groups), log_weight(groups), lo(groups), hi(groups);
    const std::size_t block = static_cast<std::size_t>(los.block);
    for (std::size_t k = 0; k < static_cast<std::size_t>(n_r); ++k)
        for (std::size_t g = 0; g < lean_groups; ++g) {
            const std::size_t first = k * block + g * block / lean_groups, last = k * block + (g + 1) * block / lean_groups;
            double w = 0, r_lo = los.r_point[first], r_hi = r_lo;
            for (std::size_t m = first; m < last; ++m) {
                w += los.weight[m];
                r_lo = std::min(r_lo, los.r_point[m]);
                r_hi = std::max(r_hi, los.r_point[m]);
            }
            weight[k * lean_groups + g] = w, lo[k * lean_groups + g] = r_lo, hi[k * lean_groups + g] = r_hi;
            log_weight[k * lean_groups + g] = std::log(w);
        }
    a.group_weight = mem.upload(weight, "upload the point groups' weights");
    a.group_log_weight = mem.upload(log_weight, "upload the point groups' weights");
    a.group_r_min = mem.upload(lo, "upload the point groups' ranges");
    a.group_r_max = mem.upload(hi, "upload the point groups' ranges");
    a.los_r_min = los.r_min, a.los_r_max = los.r_max;
}

/// The host part of a modern preparation: every area's ModernHostArea, in area order.
struct ModernHostPreparation : HostPreparation {
    std::vector<ModernHostArea> areas;
};

/// Uploads one area's tables: the cell directions, the folded line of sight, the nu areas, the per-cell
/// outputs, the chunk partial sums and the exponential's table.
template <class Real>
void fill_area(const ModernHostArea& h, const geometry::AreaTables& t, int n_streams,
               const math::ExpTableEntry* exp_table, ModernArea& a, ModernBuffers<Real>& b, DeviceMemory& mem) {
    const auto& los = h.los;
    static_cast<AreaGrid&>(a) = area_grid(t);
    upload_cell_directions<Real>(t, a.padded, b, mem);
    for (int i = 0; i < n_streams; ++i) a.skip_threshold[i] = h.thresholds[i];
    a.exp_table = exp_table;
    a.r_pieces = modern_r_pieces(a.cells, a.n_r);
    b.folded_r = mem.upload(convert<Real>(los.r_point, los.r_point.size()), "upload the line-of-sight points");
    b.folded_w = mem.upload(convert<Real>(los.weight, los.weight.size()), "upload the line-of-sight weights");
    b.ids = mem.upload(convert<Real>(t.ids, t.ids.size()), "upload the nu areas");
    const std::size_t n_out = static_cast<std::size_t>(a.padded) * (1 + n_streams) * a.r_pieces;
    b.cell_out = mem.allocate<Real>(n_out, "allocate per-cell results");
    const std::size_t n_partials = static_cast<std::size_t>(reduction_chunks) * 2 * (1 + n_streams);
    a.partials = mem.allocate<double>(n_partials, "allocate the chunk sums");
    a.block_weight = mem.upload(los.block_weight, "upload the r-bin weights");
    a.block_r_min = mem.upload(los.block_r_min, "upload the r-bin ranges");
    a.block_r_max = mem.upload(los.block_r_max, "upload the r-bin ranges");
    if constexpr (sizeof(Real) == 8) fill_lean_tables(los, t.r.n_r, a, mem);
    // Poison the outputs (all bits set is a NaN): a cell or chunk the kernels never wrote cannot pass.
    check(cudaMemset(b.cell_out, 0xff, sizeof(Real) * n_out), "poison per-cell results");
    check(cudaMemset(a.partials, 0xff, sizeof(double) * n_partials), "poison the chunk sums");
}

/// Makes a device current when constructed: as the first member of a class, it puts the members after
/// it (allocations, queues, events) on that device.
struct CurrentDevice {
    explicit CurrentDevice(int dev) : device(dev) { harness::use_device(dev, "select a device for a slice"); }
    int device;
};

/// One slice of the work: a device, its copies of the tables, and its range of every area's reduction
/// chunks.
struct Slice {
    explicit Slice(int dev) : current(dev) {}
    ~Slice() { harness::use_device_quietly(current.device); }  // the members are released on their own device
    int device() const { return current.device; }
    CurrentDevice current;  // first, so that every member below is created on this slice's device
    DeviceMemory mem;
    Stream queue;
    Event start;
    Event stop;
    std::vector<ModernArea> areas;
};

/// The modern family's state for one evaluation: every slice on its device.
class ModernIntegral : public PreparedIntegral {
public:
    ModernIntegral(const ModernVariant& variant, const geometry::IntegrationSetup& setup,
                   const std::vector<int>& devices, const LaunchOptions& options, ModernHostPreparation* early)
        : variant_(variant), options_(options), n_streams_(static_cast<int>(setup.streams.size())),
          n_areas_(setup.areas.size()), streams_(tidal_streams(setup, nullptr)) {
        const int n_slices = options.slices > 0 ? options.slices : static_cast<int>(devices.size());
        if (n_slices > reduction_chunks)
            throw CudaError("at most " + std::to_string(reduction_chunks) + " slices (one reduction chunk each)");
        auto& host = host_;
        if (early && early->areas.size() != setup.areas.size())
            throw std::logic_error("the host preparation was made for another setup");
        if (early) host = std::move(early->areas);
        else
            for (const auto& t : setup.areas) host.push_back(prepare_host_area(setup, t));
        std::vector<math::ExpTableEntry> exp_table(math::ExpTable::size);
        math::ExpTable::fill(exp_table.data());
        std::vector<math::ExpTableEntry> exp_biased(math::ExpTable::size);
        math::ExpTableBiased::fill(exp_biased.data());
        std::vector<double> exp_table8(math::ExpTable8::size);
        math::ExpTable8::fill(exp_table8.data());
        for (int k = 0; k < n_slices; ++k) {
            auto slice = std::make_unique<Slice>(devices[k % devices.size()]);
            const auto* table = slice->mem.upload(exp_table, "upload the exponential's table");
            const auto* biased = slice->mem.upload(exp_biased, "upload the exponential's table");
            const auto* table8 = slice->mem.upload(exp_table8, "upload the exponential's table");
            slice->areas.resize(setup.areas.size());
            for (std::size_t i = 0; i < setup.areas.size(); ++i) {
                auto& a = slice->areas[i];
                const auto& t = setup.areas[i];
                if (variant_.kernels.double_precision) fill_area<double>(host[i], t, n_streams_, table, a, a.f64, slice->mem);
                else fill_area<float>(host[i], t, n_streams_, table, a, a.f32, slice->mem);
                a.exp_table_biased = biased, a.exp_table8 = table8;
                a.first_chunk = reduction_chunks * k / n_slices;
                a.last_chunk = reduction_chunks * (k + 1) / n_slices;
            }
            slices_.push_back(std::move(slice));
        }
    }

    void launch() override {
        for (auto& slice : slices_) {
            harness::use_device(slice->device(), "select a slice's device");
            slice->start.record(slice->queue.get());
            for (const auto& a : slice->areas) variant_.launch(a, streams_, options_, slice->queue.get());
            slice->stop.record(slice->queue.get());
        }
    }

    float wait() override {
        float ms = 0;
        for (auto& slice : slices_) {
            harness::use_device(slice->device(), "select a slice's device");
            check(cudaStreamSynchronize(slice->queue.get()), "run the modern integral kernels");
            ms = std::max(ms, slice->stop.since(slice->start));
        }
        return ms;
    }

    /// Downloads every slice's chunk sums and adds each component's chunks in chunk order, so the sums do
    /// not depend on the slicing.
    std::vector<std::vector<double>> area_sums() override {
        const int S = n_streams_;
        std::vector<std::vector<double>> partials(
            n_areas_, std::vector<double>(static_cast<std::size_t>(reduction_chunks) * 2 * (1 + S)));
        for (auto& slice : slices_) {
            harness::use_device(slice->device(), "select a slice's device");
            for (std::size_t i = 0; i < slice->areas.size(); ++i) {
                const auto& a = slice->areas[i];
                const std::size_t n = static_cast<std::size_t>(a.last_chunk - a.first_chunk) * 2;
                if (n == 0) continue;
                // The components' ranges of this slice's chunks, one copy for each run of ranges that follow each
                // other in memory: a slice that holds every chunk (one device) downloads its area in one copy.
                std::size_t from = 0, count = 0;
                const auto download = [&] {
                    if (count > 0)
                        check(cudaMemcpy(partials[i].data() + from, a.partials + from, sizeof(double) * count,
                                         cudaMemcpyDeviceToHost),
                              "download the chunk sums");
                };
                for (int c = 0; c <= S; ++c) {
                    const std::size_t at = (static_cast<std::size_t>(c) * reduction_chunks + a.first_chunk) * 2;
                    if (count > 0 && at == from + count) {
                        count += n;
                    } else {
                        download();
                        from = at, count = n;
                    }
                }
                download();
            }
        }
        std::vector<std::vector<double>> sums;
        for (const auto& part : partials) {
            std::vector<double> area_sums(1 + S);
            for (int c = 0; c <= S; ++c) {
                math::NeumaierSum total;
                double compensation = 0;
                for (int i = 0; i < reduction_chunks; ++i) {
                    total.add(part[(static_cast<std::size_t>(c) * reduction_chunks + i) * 2]);
                    compensation += part[(static_cast<std::size_t>(c) * reduction_chunks + i) * 2 + 1];
                }
                area_sums[c] = total.value() + compensation;
            }
            sums.push_back(area_sums);
        }
        return sums;
    }

    /// With one slice, the chunks split into checkpoint_chunk_groups groups of equal size.
    int checkpoint_groups() const override { return slices_.size() == 1 ? checkpoint_chunk_groups : 0; }

    std::size_t group_width() const override {
        return n_areas_ * static_cast<std::size_t>(1 + n_streams_) * chunks_per_group * 2;
    }

    std::vector<double> run_group(int g) override {
        auto& slice = *slices_.front();
        harness::use_device(slice.device(), "select the device");
        for (auto& a : slice.areas) {
            a.first_chunk = g * chunks_per_group;
            a.last_chunk = (g + 1) * chunks_per_group;
            variant_.launch(a, streams_, options_, slice.queue.get());
        }
        check(cudaStreamSynchronize(slice.queue.get()), "run a group of the modern integral kernels");
        std::vector<double> numbers(group_width());
        copy_group(g, numbers, cudaMemcpyDeviceToHost);
        for (auto& a : slice.areas) a.first_chunk = 0, a.last_chunk = reduction_chunks;  // area_sums reads all
        return numbers;
    }

    void restore_group(int g, const std::vector<double>& numbers) override {
        harness::use_device(slices_.front()->device(), "select the device");
        auto copy = numbers;
        copy_group(g, copy, cudaMemcpyHostToDevice);
    }

    /// New stream constants and skip thresholds; the outputs poisoned again, as at preparation.
    bool retarget(const geometry::IntegrationSetup& setup, unsigned host_threads = 1) override {
        if (static_cast<int>(setup.streams.size()) != n_streams_ || setup.areas.size() != n_areas_) return false;
        std::vector<std::vector<double>> thresholds;
        for (std::size_t i = 0; i < n_areas_; ++i)
            thresholds.push_back(likelihood::stream_skip_thresholds(setup, setup.areas[i], host_[i].los, host_threads));
        return retarget_with(setup, thresholds);
    }

    bool retarget_with(const geometry::IntegrationSetup& setup, const std::vector<std::vector<double>>& thresholds) override {
        if (static_cast<int>(setup.streams.size()) != n_streams_ || setup.areas.size() != n_areas_ ||
            thresholds.size() != n_areas_)
            return false;
        for (const auto& t : thresholds)
            if (t.size() != setup.streams.size()) return false;
        streams_ = tidal_streams(setup, nullptr);
        for (std::size_t i = 0; i < n_areas_; ++i) host_[i].thresholds = thresholds[i];
        const std::size_t real = variant_.kernels.double_precision ? sizeof(double) : sizeof(float);
        for (auto& slice : slices_) {
            harness::use_device(slice->device(), "select a slice's device");
            for (std::size_t i = 0; i < n_areas_; ++i) {
                auto& a = slice->areas[i];
                for (int s = 0; s < n_streams_; ++s) a.skip_threshold[s] = host_[i].thresholds[s];
                void* cell_out = variant_.kernels.double_precision ? static_cast<void*>(a.f64.cell_out)
                                                                   : static_cast<void*>(a.f32.cell_out);
                const std::size_t n_out = static_cast<std::size_t>(a.padded) * (1 + n_streams_) * a.r_pieces;
                const std::size_t n_partials = static_cast<std::size_t>(reduction_chunks) * 2 * (1 + n_streams_);
                check(cudaMemset(cell_out, 0xff, real * n_out), "poison per-cell results");
                check(cudaMemset(a.partials, 0xff, sizeof(double) * n_partials), "poison the chunk sums");
            }
        }
        return true;
    }

private:
    /// Groups of a checkpointed run: 64 groups of 16 reduction chunks each.
    static constexpr int checkpoint_chunk_groups = 64;
    static constexpr int chunks_per_group = reduction_chunks / checkpoint_chunk_groups;
    static_assert(reduction_chunks % checkpoint_chunk_groups == 0);

    /// Copies group @p g's chunk sums between the device (each area's partials) and @p numbers, laid out
    /// area by area, component by component, chunk by chunk (sum, compensation).
    void copy_group(int g, std::vector<double>& numbers, cudaMemcpyKind kind) {
        const std::size_t per_component = static_cast<std::size_t>(chunks_per_group) * 2;
        std::size_t at = 0;
        for (const auto& a : slices_.front()->areas)
            for (int c = 0; c <= n_streams_; ++c, at += per_component) {
                double* device = a.partials + (static_cast<std::size_t>(c) * reduction_chunks +
                                               static_cast<std::size_t>(g) * chunks_per_group) * 2;
                if (kind == cudaMemcpyDeviceToHost)
                    check(cudaMemcpy(numbers.data() + at, device, sizeof(double) * per_component, kind), "download a group's chunk sums");
                else
                    check(cudaMemcpy(device, numbers.data() + at, sizeof(double) * per_component, kind), "restore a group's chunk sums");
            }
    }

    const ModernVariant& variant_;
    LaunchOptions options_;
    int n_streams_;
    std::size_t n_areas_;
    TidalStreams streams_;  // kernel arguments only: the modern kernels take no device table
    std::vector<ModernHostArea> host_;  // per area: the folded line of sight and the current skip thresholds
    std::vector<std::unique_ptr<Slice>> slices_;
};

}  // namespace

// What ModernIntegral's constructor allocates on one device: per slice there, the exponential's three
// tables, then per area what fill_area() uploads and allocates (the lean tables in double precision only).
void ModernFamily::plan_device_memory(const geometry::IntegrationSetup& setup, std::size_t streams, int slices,
                                      harness::DevicePlan& plan) const {
    const bool f64 = variant_.kernels.double_precision;
    const std::size_t real = f64 ? sizeof(double) : sizeof(float);
    const std::size_t components = 1 + streams;
    harness::DevicePlan slice;
    slice.add<math::ExpTableEntry>("the exponential's table", math::ExpTable::size, 2)
        .add<double>("the exponential's table", math::ExpTable8::size);
    for (const auto& t : setup.areas) {
        const AreaGrid g = area_grid(t);
        const auto padded = static_cast<std::size_t>(g.padded);
        const auto points = t.r.r_point.size();  // the folded line of sight has the table's points
        const auto n_r = static_cast<std::size_t>(g.n_r);
        plan_cell_directions(g.padded, real, slice);
        slice.add("line-of-sight points and weights", points, real, 2)
            .add("nu areas", t.ids.size(), real)
            .add("per-cell results", padded * components * static_cast<std::size_t>(modern_r_pieces(g.cells, g.n_r)), real)
            .add<double>("chunk sums", static_cast<std::size_t>(reduction_chunks) * 2 * components)
            .add<double>("r-bin weights and ranges", n_r, 3);
        if (f64)
            slice.add<double2>("interleaved line-of-sight points", points)
                .add<double>("point groups' weights and ranges", n_r * lean_groups, 4);
    }
    plan.include(slice, static_cast<std::size_t>(std::max(slices, 0)));
}

std::unique_ptr<PreparedIntegral> ModernFamily::prepare(const geometry::IntegrationSetup& setup,
                                                        const std::vector<int>& devices,
                                                        const LaunchOptions& options) const {
    return std::make_unique<ModernIntegral>(variant_, setup, devices, options, nullptr);
}

std::unique_ptr<HostPreparation> ModernFamily::prepare_host(const geometry::IntegrationSetup& setup) const {
    auto h = std::make_unique<ModernHostPreparation>();
    for (const auto& t : setup.areas) h->areas.push_back(prepare_host_area(setup, t));
    return h;
}

std::unique_ptr<PreparedIntegral> ModernFamily::prepare_with(const geometry::IntegrationSetup& setup,
                                                             const std::vector<int>& devices,
                                                             const LaunchOptions& options,
                                                             std::unique_ptr<HostPreparation> host) const {
    auto* early = dynamic_cast<ModernHostPreparation*>(host.get());
    return std::make_unique<ModernIntegral>(variant_, setup, devices, options, early);
}

}  // namespace mwsep::cuda
