/// @file work_unit.hpp
/// @brief The work unit as written in `astronomy_parameters.txt`, and the validated model derived from it.
#pragma once

#include <map>
#include <utility>
#include <optional>
#include <string>
#include <vector>

namespace mwsep::model {

/// One axis of an integration grid: [min, max] split into `steps` equal bins.
struct GridAxis {
    double min = 0;  ///< lower edge of the first bin
    double max = 0;  ///< upper edge of the last bin
    int steps = 0;   ///< number of bins
    double step() const { return (max - min) / steps; }  ///< bin width (spec 1.1 note d)
};

/// One integration area: the main wedge, or a cut that is subtracted from it (spec 3.3).
struct Area {
    GridAxis r;   ///< g magnitudes
    GridAxis mu;  ///< degrees along the stripe
    GridAxis nu;  ///< degrees across the stripe
};

/// One stream block of the file, with the search metadata kept so the file can be written back.
struct StreamBlock {
    double weight = 0;  ///< epsilon_s, log-weight of the stream in the mixture
    /// Search step of the weight (metadata: written back, not used by the likelihood)
    double weight_step = 0, weight_min = 0, weight_max = 0;
    /// @var weight_min
    /// Lower search bound of the weight (metadata)
    /// @var weight_max
    /// Upper search bound of the weight (metadata)
    int optimize_weight = 0;  ///< 1 if the search vector sets the weight (spec 1.2)
    std::vector<double> parameters;  ///< mu [deg], r [kpc], theta [rad], phi [rad], sigma [kpc]
    /// Search step of each stream parameter (metadata)
    std::vector<double> step, min, max;
    /// @var min
    /// Lower search bound of each stream parameter (metadata)
    /// @var max
    /// Upper search bound of each stream parameter (metadata)
    std::vector<int> optimize;  ///< per parameter: 1 if the search vector sets it
};

/// Everything `astronomy_parameters.txt` holds, in file order (spec 1.1).
struct AstronomyParameters {
    std::optional<double> parameters_version;  ///< optional first line of later files (spec 1.1 note a)
    double background_weight = 0;  ///< epsilon_bg, log-weight of the background (0 in every sample)
    std::vector<double> background_parameters;  ///< alpha, q, r0, delta [, A, B, C]
    /// Search step of each background parameter (metadata)
    std::vector<double> background_step, background_min, background_max;
    /// @var background_min
    /// Lower search bound of each background parameter (metadata)
    /// @var background_max
    /// Upper search bound of each background parameter (metadata)
    std::vector<int> optimize_background;  ///< per background parameter: 1 if the search vector sets it
    int parameters_per_stream = 5;  ///< P of `number_streams: S, P`; the parser accepts only 5
    std::vector<StreamBlock> streams;  ///< one block per stream, in file order
    int convolve = 0;  ///< n_conv: Gauss-Legendre points of the magnitude convolution (120 in the samples)
    int sgr_coordinates = 0;  ///< 0: SDSS stripe coordinates; 1: Sagittarius stripes (not supported)
    std::optional<int> aux_bg_profile;  ///< absent in every 2009 sample; treated as 0
    int wedge = 0;  ///< SDSS stripe number w
    Area main;  ///< the main integration area
    std::vector<Area> cuts;  ///< areas subtracted from the main one, in file order (spec 3.3)
    std::string source = "astronomy_parameters.txt";  ///< file name, for error messages
    /// Line of each key in the file (see LineReader::key_lines), for messages about values.
    std::map<std::string, int> key_lines;
    /// Values a parameter vector has replaced (apply_search_vector): "key#repeat[index]" -> the vector's
    /// source and the value's position in it, so that a message about such a value names the vector.
    std::map<std::string, std::pair<std::string, int>> from_vector;
};

/// The parameter vector of a search (spec 1.2), from `search_parameters.txt` or the command line.
struct SearchVector {
    std::string name;      ///< search name (file form only)
    std::vector<double> values;  ///< v_1 ... v_M, in the "set" order of spec 1.2
    std::string metadata;  ///< free text (file form only)
    std::string source;    ///< where it came from, for error messages
};

/// How the r bins are spaced (spec 2.8). Magnitude-uniform is the project default.
enum class RBinning { magnitude, kpc };

/// One stream of the validated model.
struct Stream {
    double weight;  ///< epsilon_s, log-weight in the mixture
    double mu;      ///< centre along the stripe [deg]
    double r;       ///< heliocentric distance of the centre [kpc]
    double theta;   ///< polar angle of the axis [rad]
    double phi;     ///< azimuth of the axis [rad]
    double sigma;   ///< Gaussian width [kpc]
};

/// The validated model the integrators compute with: physical parameters and grids only.
struct Model {
    double background_weight = 0;  ///< epsilon_bg, log-weight of the background
    /// alpha: inner power of the background profile (spec 1.1.1)
    double alpha = 1, q = 1, r0 = 1, delta = 1;
    /// @var q
    /// Vertical flattening of the spheroid (q > 0)
    /// @var r0
    /// Core radius r_0 [kpc] (r_0 > 0)
    /// @var delta
    /// Outer power adjustment; alpha = delta = 1 is the Hernquist case the kernels implement
    bool aux_profile = false;  ///< aux_bg_profile = 1: add the auxiliary term A g^2 + B g + C
    /// A: coefficient of g^2 in the auxiliary term
    double aux_a = 0, aux_b = 0, aux_c = 0;
    /// @var aux_b
    /// B: coefficient of g in the auxiliary term
    /// @var aux_c
    /// C: constant of the auxiliary term
    std::vector<Stream> streams;  ///< in file order (the CUDA backend takes at most 4)
    int convolve = 0;  ///< n_conv >= 1: Gauss-Legendre points of the magnitude convolution
    int wedge = 0;  ///< SDSS stripe number w
    std::vector<Area> areas;  ///< areas[0] is the main wedge; the rest are subtracted
    RBinning r_binning = RBinning::magnitude;  ///< spacing of the r bins (spec 2.8)
};

/// Star positions, structure of arrays (Galactic l, b in degrees, heliocentric r in kpc).
struct StarCatalogue {
    /// Galactic longitude of each star [deg]
    std::vector<double> l, b, r;
    /// @var b
    /// Galactic latitude of each star [deg]
    /// @var r
    /// Heliocentric distance of each star [kpc]
    std::size_t size() const { return r.size(); }  ///< number of stars
};

}  // namespace mwsep::model
