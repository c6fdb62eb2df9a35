// kirk_hwu reconstruct on the command line: bad options are refused before any work, and a tiny run
// writes its CSV rows, its iterations and its images as .npy files that read back.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "kirk_hwu/recon/problem.hpp"
#include "test_support.hpp"

namespace {

using Outcome = testsupport::CommandOutcome;

Outcome run(const std::string& arguments) { return testsupport::shell(std::string(KIRK_HWU_BINARY) + " " + arguments); }

void expect_refused(const std::string& arguments, const std::string& message) {
    const Outcome o = run(arguments);
    EXPECT_NE(o.status, 0) << arguments;
    EXPECT_NE(o.output.find(message), std::string::npos) << arguments << "\nprinted: " << o.output;
}

int lines_of(const std::string& path) {
    std::ifstream in(path);
    int lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    return lines;
}

}  // namespace

TEST(KirkHwuReconstructCommand, BadOptionsAreRefusedWithTheirName) {
    expect_refused("reconstruct --size huge", "--size");
    expect_refused("reconstruct --lambda -1", "--lambda");
    expect_refused("reconstruct --iterations 0", "--iterations");
    expect_refused("reconstruct --method fourier", "--method");
    expect_refused("reconstruct --backend cpu --size full", "--size");
    expect_refused("reconstruct --backend cpu --q-variant q-constaos-regs-sfu-u4-f32", "--q-variant");
    expect_refused("reconstruct --backend cuda --operator direct", "--operator");
    expect_refused("reconstruct --size tiny --out /nonexistent/folder", "/nonexistent/folder");
    // The old spelling of the backend is refused naming the new one (--device names a GPU's index everywhere).
    expect_refused("reconstruct --device gpu", "--device is an old spelling: write --backend cpu|cuda");
    expect_refused("reconstruct --backend gpu", "--backend must be one of cpu, cuda, found 'gpu'");
    expect_refused("reconstruct --size tiny --nufft-tolerance 1e-6", "--nufft-tolerance");  // without --operator nufft
    expect_refused("reconstruct --size tiny --operator nufft --nufft-tolerance 2", "--nufft-tolerance");
    expect_refused("reconstruct --size tiny --operator nufft --nufft-oversampling 1.1", "--nufft-oversampling");
    expect_refused("reconstruct --size tiny --operator nufft --nufft-oversampling 1.25 --nufft-tolerance 1e-12",
                   "--nufft-tolerance");  // needs a kernel wider than 16 cells
}

TEST(KirkHwuReconstructCommand, TheNufftOperatorWritesItsLabelledRow) {
    const std::string dir = testing::TempDir() + "kirk_hwu_reconstruct_nufft";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const Outcome o = run("reconstruct --backend cpu --size tiny --operator nufft --nufft-tolerance 1e-6 --iterations 3 "
                          "--tolerance 0 --threads 2 --csv " + dir + "/r.csv");
    ASSERT_EQ(o.status, 0) << o.output;
    std::ifstream in(dir + "/r.csv");
    std::string header, row;
    std::getline(in, header);
    std::getline(in, row);
    // A different algorithm, labelled as one: its method, its kernel's width and grid, its tolerance; no Q.
    EXPECT_NE(row.find(",iterative-nufft,,nufft-kb-w8-l16-tol1e-06,"), std::string::npos) << row;
}

TEST(KirkHwuReconstructCommand, ATinyRunWritesRowsIterationsAndImages) {
    const std::string dir = testing::TempDir() + "kirk_hwu_reconstruct";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const Outcome o = run("reconstruct --backend cpu --size tiny --iterations 5 --tolerance 0 --threads 2 --csv " + dir +
                          "/r.csv --history " + dir + "/h.csv --out " + dir + " --label t");
    ASSERT_EQ(o.status, 0) << o.output;
    EXPECT_EQ(lines_of(dir + "/r.csv"), 3);  // header, iterative, gridding
    EXPECT_EQ(lines_of(dir + "/h.csv"), 6);  // header and five iterations
    // The phantom's slices read back from the .npy file: the xy slice at z = −1/8 (index 3 of 8) is the phantom there.
    std::ifstream npy(dir + "/t_phantom.npy", std::ios::binary);
    ASSERT_TRUE(npy.good());
    char head[10];
    npy.read(head, 10);
    ASSERT_EQ(std::memcmp(head, "\x93NUMPY\x01\x00", 8), 0);
    const int header_length = static_cast<unsigned char>(head[8]) | static_cast<unsigned char>(head[9]) << 8;
    EXPECT_EQ((10 + header_length) % 64, 0);
    std::string header(static_cast<std::size_t>(header_length), ' ');
    npy.read(header.data(), header_length);
    EXPECT_NE(header.find("'shape': (3,8,8)"), std::string::npos) << header;
    std::vector<float> values(3 * 8 * 8);
    npy.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(sizeof(float) * values.size()));
    ASSERT_TRUE(npy.good());
    const auto problem = kirk_hwu::recon::make_recon_problem(kirk_hwu::recon::recon_shape(kirk_hwu::Size::tiny),
                                                             kirk_hwu::recon::head_phantom());
    for (int j = 0; j < 8; ++j)
        for (int i = 0; i < 8; ++i)
            EXPECT_EQ(values[i + 8 * j], static_cast<float>(problem.truth[i + 8 * (j + 8 * 3)]));
    for (const char* image : {"gridding", "iterative"}) EXPECT_TRUE(std::filesystem::exists(dir + "/t_" + image + ".npy"));
}
