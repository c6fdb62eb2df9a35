#include "mwsep/cuda/device_tables.hpp"

namespace mwsep::cuda {
namespace {

/// A texture over @p count values of Real at @p data; doubles as int2 texels, as textures cannot hold them.
template <class Real>
cudaTextureObject_t make_texture(const void* data, std::size_t count) {
    cudaResourceDesc res{};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = const_cast<void*>(data);
    if constexpr (sizeof(Real) == 8) {
        res.res.linear.desc = cudaCreateChannelDesc<int2>();
        res.res.linear.sizeInBytes = count * sizeof(int2);
    } else {
        res.res.linear.desc = cudaCreateChannelDesc<float>();
        res.res.linear.sizeInBytes = count * sizeof(float);
    }
    cudaTextureDesc tex{};
    tex.addressMode[0] = cudaAddressModeClamp;
    tex.filterMode = cudaFilterModePoint;
    tex.readMode = cudaReadModeElementType;
    cudaTextureObject_t object = 0;
    check(cudaCreateTextureObject(&object, &res, &tex, nullptr), "create the stream-constant texture");
    return object;
}

}  // namespace

TidalStreams tidal_streams(const geometry::IntegrationSetup& setup, DeviceMemory* mem) {
    const int S = static_cast<int>(setup.streams.size());
    TidalStreams streams;
    streams.count = S;
    streams.q_inv_sq = setup.q_inv_sq;
    streams.r0 = setup.model.r0;
    for (int s = 0; s < S; ++s) {
        const auto& g = setup.streams[s];
        const double vals[stream_stride] = {g.centre.x, g.centre.y, g.centre.z, g.axis.x, g.axis.y, g.axis.z};
        for (int i = 0; i < stream_stride; ++i) {
            streams.host_f64[stream_stride * s + i] = vals[i];
            streams.host_f32[stream_stride * s + i] = float(vals[i]);
        }
        streams.inv_two_sigma_sq_f64[s] = g.inv_two_sigma_sq;
        streams.inv_two_sigma_sq_f32[s] = float(g.inv_two_sigma_sq);
    }
    if (!mem) return streams;
    streams.global_f64 = mem->upload(std::vector<double>(streams.host_f64, streams.host_f64 + stream_table_size),
                                     "upload stream constants");
    streams.global_f32 = mem->upload(std::vector<float>(streams.host_f32, streams.host_f32 + stream_table_size),
                                     "upload stream constants");
    streams.texture_f64 = make_texture<double>(streams.global_f64, stream_table_size);
    mem->track_texture(streams.texture_f64);
    streams.texture_f32 = make_texture<float>(streams.global_f32, stream_table_size);
    mem->track_texture(streams.texture_f32);
    return streams;
}

}  // namespace mwsep::cuda
