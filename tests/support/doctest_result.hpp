// Lets doctest print an agentrt::result: "ok", or the error with every violation.
#pragma once

#include <agentrt/catalog/error.hpp>

#include <doctest/doctest.h>

#include <sstream>

namespace doctest {
template <class T>
struct StringMaker<boost::system::result<T, agentrt::error>> {
    static String convert(boost::system::result<T, agentrt::error> const& r) {
        if (r)
            return "ok";
        return r.error().to_string().c_str();
    }
};
} // namespace doctest
