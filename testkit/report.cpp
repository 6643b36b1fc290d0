#include <agentrt/testkit/report.hpp>

#include <atomic>
#include <iostream>

namespace agentrt::testkit {

void reporter::log(std::string_view line) {
    std::cout << line << '\n' << std::flush;
}

namespace {

class stderr_reporter final : public reporter {
public:
    void fail(source_location const& where, std::string_view message) override {
        std::cerr << where.file_name() << ':' << where.line() << ": agentrt test kit: " << message << '\n';
    }
};

stderr_reporter fallback;
std::atomic<reporter*> installed{nullptr};

} // namespace

reporter& current_reporter() noexcept {
    reporter* r = installed.load();
    return r ? *r : fallback;
}

reporter* set_reporter(reporter* r) noexcept {
    return installed.exchange(r);
}

} // namespace agentrt::testkit
