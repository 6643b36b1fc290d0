#!/bin/sh
# Consumer compile cost: generates catalogues of 10, 50 and 100 tools (5 members each, mixed
# constraints) with a policy covering them, compiles each as one translation unit with g++ -O2, and
# reports wall seconds and peak memory. 0 tools is the baseline: the headers alone, in the same run;
# the last column is the time over it.
#
#     bench/compile_cost.sh [compiler] [tool counts...]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
compiler=${1:-g++}
[ $# -gt 0 ] && shift
counts=${*:-0 1 10 50 100}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

generate() {
    n=$1
    echo '#include <agentrt/catalog.hpp>'
    if [ "$n" -eq 0 ]; then
        echo 'int main() {}'
        return
    fi
    echo 'enum class mode { fast, safe, audit };'
    echo 'BOOST_DESCRIBE_ENUM(mode, fast, safe, audit)'
    i=0
    while [ $i -lt "$n" ]; do
        cat <<CPP
struct args_$i {
    BOOST_HANA_DEFINE_STRUCT(args_$i,
        (agentrt::field<std::string, agentrt::min_length<1>, agentrt::max_length<$((i + 10))>, agentrt::pattern<"^[a-z]+-$i\$">>, id),
        (agentrt::field<int, agentrt::minimum<0>, agentrt::maximum<$((i + 100))>>, count),
        (agentrt::field<double, agentrt::exclusive_minimum<0>, agentrt::multiple_of<"0.01">>, amount),
        (std::optional<mode>, how),
        (agentrt::field<std::vector<std::string>, agentrt::max_items<$((i % 7 + 1))>, agentrt::unique_items>, tags));
};
struct tool_$i {
    static constexpr std::string_view name = "tool_$i";
    static constexpr std::string_view description = "Generated tool $i.";
    static constexpr agentrt::side_effect effect = agentrt::side_effect::remote_mutation;
    static constexpr std::chrono::milliseconds timeout{1000};
    using arguments = args_$i;
    agentrt::tool_result operator()(args_$i const& a, agentrt::call_context const&) const {
        return agentrt::tool_output{a.count.get(), "ok"};
    }
};
CPP
        i=$((i + 1))
    done
    printf 'using tools = agentrt::catalog<'
    i=0
    while [ $i -lt "$n" ]; do
        [ $i -gt 0 ] && printf ', '
        printf 'tool_%s' $i
        i=$((i + 1))
    done
    echo '>;'
    echo 'struct policy {'
    echo '    static constexpr std::string_view identity = "generated/1";'
    i=0
    while [ $i -lt "$n" ]; do
        echo "    agentrt::verdict operator()(args_$i const& a, agentrt::run_view const&) const { return a.count > 3 ? agentrt::allow() : agentrt::deny(\"few\"); }"
        i=$((i + 1))
    done
    echo '};'
    echo 'int main() {'
    echo '    auto table = tools{}.table();'
    echo '    auto evaluate = agentrt::lower_policy(policy{}, tools{});'
    echo '    auto call = table.accept("tool_0", R"({"id":"ab-0","count":5,"amount":1.5,"tags":[]})");'
    echo '    return call && evaluate(table.at(call->index), call->args, {}).outcome == agentrt::outcome::allow ? 0 : 1;'
    echo '}'
}

printf '%-6s %-8s %-10s %-9s %s\n' tools members seconds "peak MiB" "over headers"
baseline=
for n in $counts; do
    generate "$n" >"$work/catalog_$n.cpp"
    /usr/bin/time -f '%e %M' -o "$work/time_$n" \
        "$compiler" -std=c++20 -O2 -I"$root/include" -c "$work/catalog_$n.cpp" -o "$work/catalog_$n.o"
    read -r seconds kib <"$work/time_$n"
    [ -z "$baseline" ] && baseline=$seconds
    printf '%-6s %-8s %-10s %-9s %s\n' "$n" $((n * 5)) "$seconds" $((kib / 1024)) \
        "$(awk -v s="$seconds" -v b="$baseline" 'BEGIN { printf "%.2f", s - b }')"
done
