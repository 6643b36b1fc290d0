// agentrt's first demonstration: a tool declared as a C++ struct, the schema a model is shown,
// and the strict validator every model-sent call passes before anything runs.
#include <agentrt/catalog.hpp>
#include <agentrt/runtime/tool_definitions.hpp>

#include <iostream>

namespace shop {

enum class speed { standard, express };
BOOST_DESCRIBE_ENUM(speed, standard, express)

struct refund_args {
    BOOST_HANA_DEFINE_STRUCT(
        refund_args, (agentrt::field<std::string, agentrt::pattern<"^ord-[0-9]+$">>, order_id),
        (agentrt::field<double, agentrt::exclusive_minimum<0>, agentrt::maximum<500>, agentrt::multiple_of<"0.01">>,
         amount),
        (std::optional<speed>, payout));
};

struct refund {
    static constexpr std::string_view name = "refund";
    static constexpr std::string_view description = "Refund part of an order to the customer.";
    static constexpr agentrt::side_effect effect = agentrt::side_effect::remote_mutation;
    static constexpr std::chrono::milliseconds timeout{3000};
    using arguments = refund_args;
    agentrt::tool_result operator()(refund_args const& a, agentrt::call_context const&) const {
        return agentrt::tool_output{{{"refunded", a.amount}}, "refunded " + a.order_id};
    }
};

} // namespace shop

int main() {
    agentrt::catalog<shop::refund> catalogue;
    agentrt::tool_table table = catalogue.table();
    std::cout << "The tool definition a model is shown:\n"
              << agentrt::ordered_json(agentrt::render(table, agentrt::provider::anthropic)) << "\n\n";

    for (std::string_view text : {R"({"order_id": "ord-1042", "amount": 19.99})",
                                  R"({"order_id": "1042", "amount": 19.999, "payout": "now", "note": "hi"})",
                                  R"({"order_id": "ord-1", "amount": 1, "amount": 1000})"}) {
        std::cout << "model sends " << text << "\n";
        auto call = table.accept("refund", text);
        if (!call) {
            std::cout << "  refused: " << call.error() << "\n\n";
            continue;
        }
        auto out = table.at(call->index).call(call->args, agentrt::call_context{});
        std::cout << "  accepted; the tool says: " << (out ? out->summary : out.error().message) << "\n\n";
    }
}
