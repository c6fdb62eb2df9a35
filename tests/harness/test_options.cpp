// The one option parser: declared names only, strict numbers, and messages that name the option and text.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/options.hpp"
#include "harness/registry.hpp"
#include "harness/type_name.hpp"

namespace {

using harness::OptionError;
using harness::OptionKind;
using harness::Options;

const std::vector<harness::OptionSpec> specs = {
    {"--count", OptionKind::value}, {"--json", OptionKind::flag}, {"-p", OptionKind::list}, {"--rate", OptionKind::value},
    {"--mode", OptionKind::value}, {"--list", OptionKind::value}};

/// The message of the OptionError @p f throws; fails the test if it throws nothing or something else.
template <class F>
std::string option_error(F f) {
    try {
        f();
    } catch (const OptionError& e) {
        return e.what();
    }
    ADD_FAILURE() << "no OptionError";
    return "";
}

TEST(Options, ReadsValuesFlagsAndLists) {
    const Options o({"--count", "12", "--json", "-p", "1", "-2.5", "3", "--rate", "0.25"}, specs, "tool");
    EXPECT_EQ(o.integer("--count", 0), 12);
    EXPECT_TRUE(o.has("--json"));
    EXPECT_EQ(o.list("-p"), (std::vector<std::string>{"1", "-2.5", "3"}));
    EXPECT_EQ(o.real("--rate", 1.0), 0.25);
    EXPECT_EQ(o.integer("--absent", 7), 7);
    EXPECT_FALSE(o.has("--mode"));
}

TEST(Options, UnknownNameIsAnErrorNamingIt) {
    EXPECT_EQ(option_error([] { Options({"--cout", "3"}, specs, "tool"); }),
              "tool: unknown option '--cout' (see --help)");
    EXPECT_EQ(option_error([] { Options({"stray"}, specs, "tool"); }), "tool: unexpected argument 'stray' (see --help)");
    EXPECT_EQ(option_error([] { Options({"--count"}, specs, "tool"); }), "tool: --count needs a value");
}

TEST(Options, MalformedNumbersAreErrorsNamingOptionAndText) {
    for (const char* bad : {"abc", "12x", "1e3", "", " 5", "5 ", "1.5"}) {
        const Options o({"--count", bad}, specs, "tool");
        EXPECT_EQ(option_error([&] { (void)o.integer("--count", 0); }),
                  std::string("tool: --count expects an integer, found '") + bad + "'");
    }
    for (const char* bad : {"abc", "1.2.3", "nan", "inf", "1e999", ""}) {
        const Options o({"--rate", bad}, specs, "tool");
        EXPECT_EQ(option_error([&] { (void)o.real("--rate", 0); }),
                  std::string("tool: --rate expects a finite number, found '") + bad + "'");
    }
}

TEST(Options, OutOfRangeNumbersAreErrors) {
    const Options o({"--count", "0"}, specs, "tool");
    EXPECT_EQ(option_error([&] { (void)o.integer("--count", 1, 1); }), "tool: --count must be at least 1, found '0'");
    EXPECT_EQ(option_error([&] { (void)o.integer("--count", 1, 2, 4); }),
              "tool: --count must be between 2 and 4, found '0'");
    const Options huge({"--count", "99999999999999999999"}, specs, "tool");
    EXPECT_EQ(option_error([&] { (void)huge.integer("--count", 1); }).find("tool: --count must be"), 0u);
}

TEST(Options, ChoicesMatchExactly) {
    const Options o({"--mode", "fastx", "--list", "fast1,fastx"}, specs, "tool");
    EXPECT_EQ(option_error([&] { (void)o.choice("--mode", {"fast", "slow"}, "fast"); }),
              "tool: --mode must be one of fast, slow, found 'fastx'");
    EXPECT_EQ(option_error([&] { (void)o.choices("--list", {"fast1", "fastN"}, "fast1"); }),
              "tool: --list names 'fastx', which is not one of fast1, fastN");
    const Options ok({"--list", "fastN,fast1"}, specs, "tool");
    EXPECT_EQ(ok.choices("--list", {"fast1", "fastN"}, ""), (std::vector<std::string>{"fastN", "fast1"}));
    const Options empty({"--list", "fast1,"}, specs, "tool");
    EXPECT_THROW((void)empty.choices("--list", {"fast1"}, ""), OptionError);
}

// The help is made from the declarations: every option on a line of its own with its description, its
// default or "(required)", the groups under their headings, an old spelling left out; the description column
// is wrapped at 100 characters.
TEST(Options, HelpIsGeneratedFromTheDeclarations) {
    namespace opt = harness::option;
    const std::vector<harness::OptionSpec> declared = {
        opt::required("-a", "FILE", "the input"),
        opt::value("--backend", "cpu|cuda", "where to compute", "cpu"),
        opt::flag("--json", "print JSON"),
        opt::list("-p", "V", "values", "none"),
        opt::renamed("--device", OptionKind::value, "--backend cpu|cuda"),
        opt::value("--long", "N", std::string(60, 'x') + " yy", "3")};
    std::vector<harness::OptionSpec> specs = declared;
    for (auto& s : opt::grouped("more options", {opt::value("--z", "S", "zed", "1")})) specs.push_back(s);
    harness::CommandHelp about;
    about.about = "Does a thing.";
    about.notes = "A note.";
    const std::string help = harness::help_text("tool run", about, specs);
    const std::string expected_start =
        "usage: tool run -a FILE [options]\n"
        "Does a thing.\n"
        "\n"
        "options:\n"
        "  -a FILE                     the input (required)\n"
        "  --backend cpu|cuda          where to compute (default: cpu)\n"
        "  --json                      print JSON\n"
        "  -p V ...                    values (default: none)\n";
    EXPECT_EQ(help.substr(0, expected_start.size()), expected_start) << help;
    EXPECT_EQ(help.find("--device"), std::string::npos) << help;
    EXPECT_NE(help.find(std::string(60, 'x') + " yy\n                              (default: 3)\n"), std::string::npos) << help;
    EXPECT_NE(help.find("  -h, --help                  print this help and exit\n\nmore options:\n  --z S"), std::string::npos)
        << help;
    EXPECT_NE(help.find("\nA note.\n\nexit status:"), std::string::npos) << help;
    for (std::size_t start = 0, end; (end = help.find('\n', start)) != std::string::npos; start = end + 1)
        EXPECT_LE(end - start, 100u) << help.substr(start, end - start);
    // --help anywhere wins, before any other word is judged; the old spelling is refused naming the new one.
    try {
        Options({"--bogus", "--help"}, declared, "tool run", about);
        ADD_FAILURE() << "no help";
    } catch (const harness::HelpRequested& h) {
        EXPECT_EQ(std::string(h.what()), help.substr(0, help.find("more options:") - 1) + help.substr(help.find("\nA note.")))
            << h.what();
    }
    EXPECT_EQ(option_error([&] { Options({"--device", "gpu"}, declared, "tool run"); }),
              "tool run: --device is an old spelling: write --backend cpu|cuda");
}

struct Entry {
    std::string name;
    int value;
};

TEST(Registry, FindsExactNamesAndListsTheValidOnes) {
    harness::Registry<Entry> r("thing");
    r.add({"alpha", 1});
    r.add({"beta", 2});
    EXPECT_EQ(r.find("beta").value, 2);
    EXPECT_TRUE(r.contains("alpha"));
    EXPECT_FALSE(r.contains("alph"));
    try {
        (void)r.find("alph");
        ADD_FAILURE() << "no error";
    } catch (const harness::UnknownName& e) {
        EXPECT_STREQ(e.what(), "unknown thing 'alph'; the valid names are: alpha, beta");
    }
    EXPECT_THROW(r.add({"alpha", 3}), std::logic_error);
    EXPECT_EQ(r.name_list(), (std::vector<std::string>{"alpha", "beta"}));
}

TEST(Registry, GlobMatchesStarsAndQuestionMarks) {
    EXPECT_TRUE(harness::glob_match("*-fast-unrolled-f64", "shared-fast-unrolled-f64"));
    EXPECT_FALSE(harness::glob_match("*-fast-unrolled-f64", "shared-fast-unrolled-f32"));
    EXPECT_TRUE(harness::glob_match("*", ""));
    EXPECT_TRUE(harness::glob_match("a*b*c", "aXbYbZc"));
    EXPECT_FALSE(harness::glob_match("a*b*c", "aXbYbZ"));
    EXPECT_TRUE(harness::glob_match("f?st", "fast"));
    EXPECT_FALSE(harness::glob_match("f?st", "fst"));
}

TEST(Registry, SelectsListsOfNamesAndPatternsInTheirOrderOnce) {
    harness::Registry<Entry> r("thing");
    for (const char* n : {"global-fast-f64", "shared-fast-f64", "shared-ieee-f64", "global-ieee-f32"}) r.add({n, 0});
    const auto names = [](const std::vector<const Entry*>& v) {
        std::string out;
        for (const Entry* e : v) out += (out.empty() ? "" : " ") + e->name;
        return out;
    };
    EXPECT_EQ(names(r.select("*-fast-f64")), "global-fast-f64 shared-fast-f64");
    EXPECT_EQ(names(r.select("shared-ieee-f64,*-f64")), "shared-ieee-f64 global-fast-f64 shared-fast-f64");
    EXPECT_EQ(names(r.select("all")).size(), std::string("global-fast-f64 shared-fast-f64 shared-ieee-f64 global-ieee-f32").size());
    EXPECT_THROW(r.select("*-f16"), harness::UnknownName);
    EXPECT_THROW(r.select("global-fast-f64,"), harness::UnknownName);
    EXPECT_THROW(r.select("nothing"), harness::UnknownName);
}

namespace spelled {
template <class A, int N>
struct Pair {};
struct Tag {};
}  // namespace spelled

TEST(TypeName, SpellsTypesAsTheDemanglerDoes) {
    EXPECT_EQ((harness::type_name<spelled::Pair<spelled::Tag, 3>>()), "(anonymous namespace)::spelled::Pair<(anonymous namespace)::spelled::Tag, 3>");
    EXPECT_EQ(harness::type_name<double>(), "double");
    EXPECT_EQ(harness::function_identity("void ns::f<ns::A<float>, 3>(ns::Args<ns::A<float>::Real>, int)"),
              "ns::f<ns::A<float>, 3>");
    EXPECT_EQ(harness::function_identity("ns::g(int)"), "ns::g");
}

}  // namespace
