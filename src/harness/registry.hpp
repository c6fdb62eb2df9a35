/// @file registry.hpp
/// @brief A table of named entries (kernel variants, integrators) in registration order, with lookup
/// by exact name: an unknown name is an error that lists the valid ones.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace harness {

/// An unknown name was looked up in a Registry.
class UnknownName : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

/// Named entries of type @p Info (which has a `std::string name` member), in the order they were added.
template <class Info>
class Registry {
public:
    /// @p what names the kind of entry in error messages ("kernel variant").
    explicit Registry(std::string what) : what_(std::move(what)) {}

    /// Adds @p info; a name may be registered once only.
    void add(Info info) {
        for (const auto& e : entries_)
            if (e.name == info.name) throw std::logic_error(what_ + " '" + info.name + "' registered twice");
        entries_.push_back(std::move(info));
    }

    /// The entry called exactly @p name; UnknownName, listing every valid name, if there is none.
    const Info& find(const std::string& name) const {
        for (const auto& e : entries_)
            if (e.name == name) return e;
        throw UnknownName("unknown " + what_ + " '" + name + "'; the valid names are: " + names());
    }

    /// Every entry, in registration order.
    const std::vector<Info>& entries() const { return entries_; }

    /// The names, comma-separated, in registration order.
    std::string names() const {
        std::string out;
        for (const auto& e : entries_) out += (out.empty() ? "" : ", ") + e.name;
        return out;
    }

private:
    std::string what_;
    std::vector<Info> entries_;
};

}  // namespace harness
