/// @file registry.hpp
/// @brief A table of named entries (kernel variants, integrators) in registration order, with lookup
/// by exact name: an unknown name is an error that lists the valid ones.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace harness {

/// Whether @p name matches @p pattern, in which `*` stands for any run of characters (also none) and `?`
/// for one character; every other character stands for itself.
inline bool glob_match(const std::string& pattern, const std::string& name) {
    std::size_t p = 0, n = 0, star = std::string::npos, resume = 0;
    while (n < name.size()) {
        if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
            ++p;
            ++n;
        } else if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            resume = n;
        } else if (star != std::string::npos) {
            p = star + 1;
            n = ++resume;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

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

    /// Whether an entry is called exactly @p name.
    bool contains(const std::string& name) const {
        for (const auto& e : entries_)
            if (e.name == name) return true;
        return false;
    }

    /// The entry called exactly @p name; UnknownName, listing every valid name, if there is none.
    const Info& find(const std::string& name) const {
        for (const auto& e : entries_)
            if (e.name == name) return e;
        throw UnknownName("unknown " + what_ + " '" + name + "'; the valid names are: " + names());
    }

    /// The entries a comma-separated list selects, in the list's order: `all`, an exact name, or a pattern
    /// with `*` and `?` (glob_match; its matches in registration order); an entry selected twice is listed
    /// once. UnknownName for an item that selects nothing (empty items included).
    std::vector<const Info*> select(const std::string& list) const {
        std::vector<const Info*> out;
        const auto keep = [&](const Info& e) {
            for (const Info* o : out)
                if (o == &e) return;
            out.push_back(&e);
        };
        std::size_t start = 0;
        while (true) {
            const std::size_t comma = list.find(',', start);
            const std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            if (item == "all") {
                for (const auto& e : entries_) keep(e);
            } else if (item.find_first_of("*?") == std::string::npos) {
                keep(find(item));
            } else {
                bool any = false;
                for (const auto& e : entries_)
                    if (glob_match(item, e.name)) {
                        keep(e);
                        any = true;
                    }
                if (!any) throw UnknownName("no " + what_ + " matches '" + item + "'; the valid names are: " + names());
            }
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        return out;
    }
    /// Every entry, in registration order.
    const std::vector<Info>& entries() const { return entries_; }

    /// The names, in registration order.
    std::vector<std::string> name_list() const {
        std::vector<std::string> out;
        for (const auto& e : entries_) out.push_back(e.name);
        return out;
    }

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
