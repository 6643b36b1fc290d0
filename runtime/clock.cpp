#include <agentrt/runtime/clock.hpp>

#include <random>

namespace agentrt {

std::int64_t system_clock_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string random_id() {
    static thread_local std::random_device device;
    static constexpr char digits[] = "0123456789abcdef";
    std::string id;
    for (int i = 0; i < 4; ++i) {
        auto word = device();
        for (int j = 0; j < 8; ++j, word >>= 4)
            id.push_back(digits[word & 0xf]);
    }
    return id;
}

} // namespace agentrt
