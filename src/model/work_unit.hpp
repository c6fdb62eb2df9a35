/// @file work_unit.hpp
/// @brief The work unit as written in `astronomy_parameters.txt`, and the validated model derived from it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mwsep::model {

/// One axis of an integration grid: [min, max] split into `steps` equal bins.
struct GridAxis {
    double min = 0;
    double max = 0;
    int steps = 0;
    double step() const { return (max - min) / steps; }
};

/// One integration area: the main wedge, or a cut that is subtracted from it (spec 3.3).
struct Area {
    GridAxis r;   ///< g magnitudes
    GridAxis mu;  ///< degrees along the stripe
    GridAxis nu;  ///< degrees across the stripe
};

/// One stream block of the file, with the search metadata kept so the file can be written back.
struct StreamBlock {
    double weight = 0;
    double weight_step = 0, weight_min = 0, weight_max = 0;
    int optimize_weight = 0;
    std::vector<double> parameters;  ///< mu [deg], r [kpc], theta [rad], phi [rad], sigma [kpc]
    std::vector<double> step, min, max;
    std::vector<int> optimize;
};

/// Everything `astronomy_parameters.txt` holds, in file order (spec 1.1).
struct AstronomyParameters {
    std::optional<double> parameters_version;
    double background_weight = 0;
    std::vector<double> background_parameters;  ///< alpha, q, r0, delta [, A, B, C]
    std::vector<double> background_step, background_min, background_max;
    std::vector<int> optimize_background;
    int parameters_per_stream = 5;
    std::vector<StreamBlock> streams;
    int convolve = 0;
    int sgr_coordinates = 0;
    std::optional<int> aux_bg_profile;  ///< absent in every 2009 sample; treated as 0
    int wedge = 0;
    Area main;
    std::vector<Area> cuts;
    std::string source = "astronomy_parameters.txt";  ///< file name, for error messages
    /// Line of each key in the file (see LineReader::key_lines), for messages about values.
    std::map<std::string, int> key_lines;
};

/// The parameter vector of a search (spec 1.2), from `search_parameters.txt` or the command line.
struct SearchVector {
    std::string name;      ///< search name (file form only)
    std::vector<double> values;
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
    double background_weight = 0;
    double alpha = 1, q = 1, r0 = 1, delta = 1;
    bool aux_profile = false;
    double aux_a = 0, aux_b = 0, aux_c = 0;
    std::vector<Stream> streams;
    int convolve = 0;
    int wedge = 0;
    bool sgr_coordinates = false;
    std::vector<Area> areas;  ///< areas[0] is the main wedge; the rest are subtracted
    RBinning r_binning = RBinning::magnitude;
};

/// Star positions, structure of arrays (Galactic l, b in degrees, heliocentric r in kpc).
struct StarCatalogue {
    std::vector<double> l, b, r;
    std::size_t size() const { return r.size(); }
};

}  // namespace mwsep::model
