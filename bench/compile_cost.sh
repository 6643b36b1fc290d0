#!/bin/sh
# Consumer compile cost: generates catalogues of 10, 50 and 100 tools (5 members each, mixed
# constraints) with a policy covering them, compiles each as one translation unit with g++ -O2, and
# reports wall seconds and peak memory. 0 tools is the baseline: the headers alone, in the same run;
# the last column is the time over it.
#
#     bench/compile_cost.sh [compiler] [tool counts...]
#
# With `depth` first, it measures deep types instead, at -O0 as a consumer's debug build compiles
# them: a struct holding a std::vector nested N deep and a tree of structs D levels deep (each
# holding two of the next), each compiled twice in the same run: declared alone (the bare Hana
# struct) and with its schema and decoder instantiated. The difference is agentrt's share.
#
#     bench/compile_cost.sh depth [compiler]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = depth ]; then
    mode=depth
    shift
else
    mode=catalogue
fi
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
        return agentrt::tool_output{int{a.count}, "ok"};
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

nested_vector() {
    t=int
    i=0
    while [ $i -lt "$1" ]; do
        t="std::vector<$t>"
        i=$((i + 1))
    done
    echo '#include <agentrt/catalog.hpp>'
    echo "struct deep { BOOST_HANA_DEFINE_STRUCT(deep, ($t, v)); };"
    echo "using root = deep;"
}

struct_tree() {
    echo '#include <agentrt/catalog.hpp>'
    echo "struct level_$1 { BOOST_HANA_DEFINE_STRUCT(level_$1, (int, leaf)); };"
    i=$(($1 - 1))
    while [ $i -ge 0 ]; do
        echo "struct level_$i { BOOST_HANA_DEFINE_STRUCT(level_$i, (level_$((i + 1)), left), (level_$((i + 1)), right)); };"
        i=$((i - 1))
    done
    echo "using root = level_0;"
}

compile_depth() {
    label=$1
    shift
    "$@" >"$work/bare.cpp"
    cp "$work/bare.cpp" "$work/agentrt.cpp"
    echo 'int main() { root r; (void)r; }' >>"$work/bare.cpp"
    echo 'int main() { return int(agentrt::schema_text<root>().size()) + (agentrt::decode<root>("{}") ? 1 : 0); }' \
        >>"$work/agentrt.cpp"
    for variant in bare agentrt; do
        /usr/bin/time -f '%e' -o "$work/time_$variant" \
            "$compiler" -std=c++20 -O0 -I"$root/include" -c "$work/$variant.cpp" -o "$work/$variant.o"
    done
    bare=$(cat "$work/time_bare")
    with=$(cat "$work/time_agentrt")
    printf '%-24s %-14s %-14s %s\n' "$label" "$bare" "$with" "$(awk -v a="$with" -v b="$bare" 'BEGIN { printf "%.2f", a - b }')"
}

if [ "$mode" = depth ]; then
    printf '%-24s %-14s %-14s %s\n' type "bare Hana s" "agentrt s" "agentrt's share"
    for n in 8 12 16 19; do
        compile_depth "std::vector x $n" nested_vector "$n"
    done
    for d in 5 10; do
        compile_depth "struct tree $d deep" struct_tree "$d"
    done
    exit 0
fi

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
