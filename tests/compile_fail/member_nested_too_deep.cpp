#include "../support/nested_vectors.hpp"
#include "common.hpp"

// The struct is one level and each vector one more: 21 levels, one past the limit.
struct survey_args {
    BOOST_HANA_DEFINE_STRUCT(survey_args, (std::string, id), (nested<int, 20>::type, answers));
};

auto const& info = agentrt::type_info_of<survey_args>();
