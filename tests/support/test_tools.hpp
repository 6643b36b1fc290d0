// A representative catalogue for the tests: every supported member type and keyword appears.
#pragma once

#include <agentrt/catalog/tool.hpp>

#include "support/doctest_result.hpp"

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace test_tools {

using agentrt::description;
using agentrt::field;

enum class priority { low, normal, urgent };
BOOST_DESCRIBE_ENUM(priority, low, normal, urgent)

struct flags {
    BOOST_HANA_DEFINE_STRUCT(flags, (bool, enabled));
};

struct every_scalar {
    BOOST_HANA_DEFINE_STRUCT(every_scalar, (bool, flag), (std::int8_t, i8), (std::uint8_t, u8), (std::int16_t, i16),
                             (std::uint16_t, u16), (std::int32_t, i32), (std::uint32_t, u32), (std::int64_t, i64),
                             (std::uint64_t, u64), (float, f32), (double, f64), (std::string, text), (priority, level));
};

struct bounded_numbers {
    BOOST_HANA_DEFINE_STRUCT(bounded_numbers, (field<int, agentrt::minimum<1>, agentrt::maximum<10>>, count),
                             (field<int, agentrt::exclusive_minimum<0>, agentrt::exclusive_maximum<100>>, percent),
                             (field<double, agentrt::minimum<"-2.5">, agentrt::exclusive_maximum<"2.5">>, ratio),
                             (field<double, agentrt::multiple_of<"0.01">>, price),
                             (field<std::uint32_t, agentrt::multiple_of<5>, agentrt::maximum<1000>>, step));
};

struct text_rules {
    BOOST_HANA_DEFINE_STRUCT(
        text_rules, (field<std::string, agentrt::min_length<1>, agentrt::max_length<8>>, code),
        (field<std::string, agentrt::pattern<"^[a-z][a-z0-9_]*$">, description<"A lower-case identifier">>, ident),
        (std::optional<field<std::string, agentrt::pattern<"^\\d{3}-\\d{4}$">>>, phone));
};

struct email_recipient {
    BOOST_HANA_DEFINE_STRUCT(email_recipient, (agentrt::tag<"email">, kind),
                             (field<std::string, agentrt::max_length<64>, agentrt::pattern<"^[^@ ]+@[^@ ]+$">>,
                              address));
};

struct phone_recipient {
    BOOST_HANA_DEFINE_STRUCT(phone_recipient, (agentrt::tag<"phone">, kind),
                             (field<std::string, agentrt::pattern<"^\\+[0-9]{6,15}$">>, number),
                             (std::optional<bool>, sms));
};

struct send_args {
    BOOST_HANA_DEFINE_STRUCT(
        send_args, (std::variant<email_recipient, phone_recipient>, to),
        (field<std::vector<field<std::string, agentrt::max_length<64>>>, agentrt::max_items<3>, agentrt::unique_items>,
         cc),
        (field<std::string, agentrt::min_length<1>, agentrt::max_length<200>, description<"Subject line">>, subject),
        (std::optional<priority>, urgency), (std::map<std::string, field<int, agentrt::minimum<0>>>, counters),
        (std::optional<flags>, options));
};

struct lookup_args {
    BOOST_HANA_DEFINE_STRUCT(lookup_args,
                             (field<std::string, agentrt::pattern<"^ord-[0-9]+$">, description<"Order id">>, order_id));
};

struct wipe_args {
    BOOST_HANA_DEFINE_STRUCT(wipe_args, (field<std::string, agentrt::min_length<1>>, account), (bool, confirm));
};

// A struct we do not own, adapted from outside.
struct adapted_point {
    int x = 0;
    int y = 0;
};

struct lists {
    BOOST_HANA_DEFINE_STRUCT(lists, (field<std::vector<int>, agentrt::min_items<1>, agentrt::max_items<4>>, numbers),
                             (std::vector<std::vector<std::string>>, grid), (std::vector<flags>, switches));
};

struct lookup_order {
    static constexpr std::string_view name = "lookup_order";
    static constexpr std::string_view description = "Find an order by id.";
    static constexpr agentrt::side_effect effect = agentrt::side_effect::read_only;
    static constexpr std::chrono::milliseconds timeout{1000};
    using arguments = lookup_args;
    int* calls = nullptr;
    agentrt::tool_result operator()(lookup_args const& a, agentrt::call_context const&) const {
        if (calls)
            ++*calls;
        return agentrt::tool_output{{{"order", a.order_id.get()}, {"status", "shipped"}}, "order shipped"};
    }
};

struct send_message {
    static constexpr std::string_view name = "send_message";
    static constexpr std::string_view description = "Send a message to one recipient.";
    static constexpr agentrt::side_effect effect = agentrt::side_effect::remote_mutation;
    static constexpr std::chrono::milliseconds timeout{5000};
    using arguments = send_args;
    agentrt::tool_result operator()(send_args const& a, agentrt::call_context const& c) const {
        return agentrt::tool_output{{{"subject", a.subject.get()}, {"key", c.idempotency_key}}, "sent"};
    }
};

struct wipe_account {
    static constexpr std::string_view name = "wipe_account";
    static constexpr std::string_view description = "Delete an account and all its data.";
    static constexpr agentrt::side_effect effect = agentrt::side_effect::destructive;
    static constexpr std::chrono::milliseconds timeout{30000};
    static constexpr bool terminal = true;
    using arguments = wipe_args;
    agentrt::tool_result operator()(wipe_args const& a, agentrt::call_context const&) const {
        if (!a.confirm)
            return agentrt::tool_error("refusing to wipe without confirm");
        return agentrt::tool_output{{{"wiped", a.account.get()}}, "wiped"};
    }
};

} // namespace test_tools

BOOST_HANA_ADAPT_STRUCT(test_tools::adapted_point, x, y);
