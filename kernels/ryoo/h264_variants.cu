// The H.264 SAD variants: the reference read from global memory, through the read-only data cache or
// through the texture unit, each with the SAD loops rolled, completely unrolled, and unrolled with register
// tiling (three vectors per thread); the device frames and the kernel that sums the larger blocks.
#include <stdexcept>
#include <string>

#include "harness/check.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/h264.cuh"

namespace ryoo {

H264DeviceFrames::H264DeviceFrames(int width, int height) : width_(width), height_(height) {
    if (width < 16 || height < 16 || width % 16 || height % 16)
        throw std::invalid_argument("H.264 device frames: " + std::to_string(width) + " x " + std::to_string(height) +
                                    "; expected positive multiples of 16");
    const std::size_t bytes = static_cast<std::size_t>(width) * height;
    harness::check(cudaMalloc(&current_, bytes), "allocate the current frame");
    try {
        harness::check(cudaMallocPitch(&reference_, &pitch_, static_cast<std::size_t>(width), static_cast<std::size_t>(height)),
                       "allocate the reference frame");
        cudaResourceDesc resource{};
        resource.resType = cudaResourceTypePitch2D;
        resource.res.pitch2D.devPtr = reference_;
        resource.res.pitch2D.desc = cudaCreateChannelDesc<unsigned char>();
        resource.res.pitch2D.width = static_cast<std::size_t>(width);
        resource.res.pitch2D.height = static_cast<std::size_t>(height);
        resource.res.pitch2D.pitchInBytes = pitch_;
        cudaTextureDesc texture{};
        texture.addressMode[0] = texture.addressMode[1] = cudaAddressModeClamp;
        texture.filterMode = cudaFilterModePoint;
        texture.readMode = cudaReadModeElementType;
        texture.normalizedCoords = 0;
        harness::check(cudaCreateTextureObject(&texture_, &resource, &texture, nullptr), "create the reference texture");
    } catch (...) {
        cudaFree(reference_);
        cudaFree(current_);
        throw;
    }
}

H264DeviceFrames::~H264DeviceFrames() {
    // A destructor cannot report errors; the frames are released whatever happens.
    if (texture_) cudaDestroyTextureObject(texture_);
    cudaFree(reference_);
    cudaFree(current_);
}

void H264DeviceFrames::upload(const std::uint8_t* current, const std::uint8_t* reference, cudaStream_t s) {
    const auto w = static_cast<std::size_t>(width_), h = static_cast<std::size_t>(height_);
    harness::check(cudaMemcpyAsync(current_, current, w * h, cudaMemcpyHostToDevice, s), "upload the current frame");
    harness::check(cudaMemcpy2DAsync(reference_, pitch_, reference, w, w, h, cudaMemcpyHostToDevice, s), "upload the reference frame");
}

void h264_larger(const std::uint16_t* sad4, int width, int macroblocks, int range, std::uint16_t* sad8, std::uint16_t* sad16,
                 cudaStream_t s) {
    const int positions = h264_positions(range);
    const dim3 grid((positions + kernels::h264_block - 1) / kernels::h264_block, static_cast<unsigned>(macroblocks));
    kernels::ryoo_h264_larger<<<grid, kernels::h264_block, 0, s>>>(sad4, width, positions, sad8, sad16);
    harness::check(cudaGetLastError(), "launch the larger-block SADs");
}

namespace {

using namespace kernels;

/// The registry entry of the 4x4 SAD kernel with reference reads @p Ref and loops @p Loop.
template <class Ref, class Loop>
H264Variant h264_variant(const std::string& loop_name, const std::string& summary) {
    H264Variant v;
    v.name = std::string("sad-") + Ref::name + "-" + loop_name;
    v.summary = summary;
    v.facts = [] { return KernelFacts{reinterpret_cast<const void*>(&ryoo_h264_sad4<Ref, Loop>), h264_block, 0, 0}; };
    v.run = [](const H264DeviceFrames& fr, int range, std::uint16_t* sad4, cudaStream_t s) {
        const H264Frame f{fr.reference(), fr.pitch(), fr.width(), fr.height(), fr.texture()};
        const long long blocks = static_cast<long long>(fr.width() / 4) * (fr.height() / 4);
        ryoo_h264_sad4<Ref, Loop><<<static_cast<unsigned>(blocks), h264_block, 0, s>>>(fr.current(), f, range, sad4);
        harness::check(cudaGetLastError(), "launch the 4x4 SADs");
    };
    return v;
}

/// The three loop forms with reference reads @p Ref.
template <class Ref>
void add_reads(harness::Registry<H264Variant>& r, const std::string& reads) {
    r.add(h264_variant<Ref, Rolled>("rolled", reads + ", one vector per thread, the 4x4 loops rolled"));
    r.add(h264_variant<Ref, Unrolled<1>>("unrolled", reads + ", one vector per thread, the 4x4 loops completely unrolled"));
    r.add(h264_variant<Ref, Unrolled<3>>("tiled3", reads + ", three adjacent vectors per thread (register tiling), loops unrolled"));
}

}  // namespace

void add_h264_variants(harness::Registry<H264Variant>& r) {
    add_reads<GlobalRef>(r, "reference from global memory");
    add_reads<LdgRef>(r, "reference through the read-only data cache (__ldg)");
    add_reads<TextureRef>(r, "reference through the texture unit (clamp addressing)");
}

}  // namespace ryoo
