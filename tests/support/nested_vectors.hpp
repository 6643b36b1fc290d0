// std::vector nested `Levels` deep around T, for tests of agentrt::max_type_depth.
#pragma once

#include <vector>

template <class T, int Levels>
struct nested {
    using type = std::vector<typename nested<T, Levels - 1>::type>;
};
template <class T>
struct nested<T, 0> {
    using type = T;
};
