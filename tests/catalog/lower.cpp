#include <agentrt/catalog/compiled_schema.hpp>

#include <agentrt/catalog/reflect.hpp>

#include "support/test_tools.hpp"

namespace {
using namespace test_tools;
} // namespace

TEST_CASE("a_typed_schema_lowers_variants_enums_tags_and_optionals") {
    auto s = agentrt::lowered(agentrt::type_info_of<send_args>());
    auto const& root = s.root();
    CHECK(root.typed());
    CHECK(root.type == &agentrt::type_info_of<send_args>());
    CHECK(root.types == agentrt::json_type::object);
    CHECK(root.additional == agentrt::extra_members::forbidden);
    REQUIRE(root.properties.size() == 6);
    auto const& to = *root.properties[0].node;
    REQUIRE(to.one_of.size() == 2);
    auto const& kind = *to.one_of[1]->properties[0].node;
    CHECK(kind.is_const);
    CHECK(kind.enumeration.front() == "phone");
    CHECK(root.properties[3].name == "urgency");
    CHECK_FALSE(root.properties[3].required);
    CHECK(root.properties[3].node->enumeration.size() == 3);
    CHECK(root.properties[4].node->additional == agentrt::extra_members::schema);
    CHECK(root.properties[1].node->keywords.unique_items);
    CHECK(&agentrt::lowered(agentrt::type_info_of<send_args>()).root() == &root); // cached
}
