#include <agentrt/runtime/clock.hpp>

#include <random>

namespace agentrt {

std::int64_t system_clock_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

namespace {

constexpr char hex_digits[] = "0123456789abcdef";

void append_random_hex(std::string& id, int count) {
    static thread_local std::random_device device;
    while (count > 0) {
        auto word = device();
        for (int j = 0; j < 8 && count > 0; ++j, --count, word >>= 4)
            id.push_back(hex_digits[word & 0xf]);
    }
}

} // namespace

std::string random_id() {
    std::string id;
    append_random_hex(id, 32);
    return id;
}

std::string time_ordered_id(std::int64_t now_ms) {
    auto time = static_cast<std::uint64_t>(now_ms);
    std::string id;
    for (int shift = 44; shift >= 0; shift -= 4)
        id.push_back(hex_digits[(time >> shift) & 0xf]);
    append_random_hex(id, 20);
    return id;
}

std::string time_ordered_id() {
    return time_ordered_id(system_clock_ms());
}

} // namespace agentrt
