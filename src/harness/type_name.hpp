/// @file type_name.hpp
/// @brief The spelled name of a C++ type or of a mangled symbol, as a demangler writes it, so that code can
/// compare its own types with the names a compiler's report gives (e.g. ptxas's kernel entries).
#pragma once

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <typeinfo>

namespace harness {

/// The demangled form of @p mangled (Itanium ABI), or @p mangled itself if it is not a mangled name.
inline std::string demangle(const std::string& mangled) {
    int status = 0;
    const std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                                     std::free);
    return status == 0 && out ? std::string(out.get()) : mangled;
}

/// The fully qualified name of type @p T as the demangler spells it, e.g. `ns::Variant<ns::A, float>`.
template <class T>
std::string type_name() {
    return demangle(typeid(T).name());
}

/// The identity of a function in a demangled signature: the name with its template arguments, without
/// the return type in front and the parameter list behind. `void ns::f<ns::A, 3>(ns::Args<float>, int)`
/// gives `ns::f<ns::A, 3>`.
inline std::string function_identity(const std::string& signature) {
    // The parameter list is the first '(' outside the template argument list.
    int depth = 0;
    std::size_t start = 0;
    std::size_t end = signature.size();
    for (std::size_t i = 0; i < signature.size(); ++i) {
        const char c = signature[i];
        if (c == '<') ++depth;
        else if (c == '>') --depth;
        else if (c == ' ' && depth == 0) start = i + 1;  // what precedes the last space is the return type
        else if (c == '(' && depth == 0) {
            end = i;
            break;
        }
    }
    return signature.substr(start, end - start);
}

}  // namespace harness
