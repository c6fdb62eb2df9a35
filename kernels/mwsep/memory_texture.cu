/// @file memory_texture.cu
/// @brief Stream constants read through the texture path (thesis section 4.4.1, Table 4.2 "Texture").
///
/// Changed relative to memory_global.cu: the values are fetched with `tex1Dfetch` from a texture object
/// over the same device array. Textures cannot hold doubles, so, as in the thesis, each double is stored
/// as an `int2` texel (its low and high 32-bit words) and reassembled with `__hiloint2double`.
/// The thesis used texture references, which CUDA 12 removed; texture objects give the same fetches.
#include "integral.cuh"

namespace mwsep::cuda {
/// Kernels, their policies and host launchers; every translation unit's own constant symbols are static.
namespace kernels {

// [memory-texture-begin]
/// Policy: stream constants through a texture object.
struct TextureMemory {
    static constexpr const char* name = "texture";  ///< memory part of the variant name
    /// Values of the stream table this policy stages in shared memory.
    static constexpr int shared_values = 0;
    static void upload(const TidalStreams&, cudaStream_t) {}  ///< nothing to do: the texture views the uploaded array
    /// The texture object of precision Real, and no device pointer.
    template <class Real>
    static StreamArgs<Real> args(const TidalStreams& s) {
        if constexpr (sizeof(Real) == 8) return {nullptr, s.texture_f64};
        else return {nullptr, s.texture_f32};
    }
    /// Fetches constant i as a texel (two words for a double).
    template <class Real>
    struct View {
        cudaTextureObject_t texture;  ///< int2 texels for double, float texels for float
        __device__ View(const StreamArgs<Real>& a, Real*, int) : texture(a.texture) {}  ///< keeps the texture object
        /// Value @p i of the table: stream i / 6, component i % 6.
        __device__ Real operator()(int i) const {
            if constexpr (sizeof(Real) == 8) {
                const int2 words = tex1Dfetch<int2>(texture, i);
                return __hiloint2double(words.y, words.x);
            } else {
                return tex1Dfetch<float>(texture, i);
            }
        }
    };
};
// [memory-texture-end]

}  // namespace kernels

/// Adds the eight variants of the texture-memory family (the 2 x 2 x 2 product of its other axes); declared from
/// memory_families.def.
void add_texture_variants(std::vector<ThesisVariant>& out) { kernels::add_memory_family<kernels::TextureMemory>(out); }

}  // namespace mwsep::cuda
