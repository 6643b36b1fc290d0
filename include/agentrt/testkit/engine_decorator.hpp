// agentrt/testkit/engine_decorator.hpp — an engine that forwards to another, to override a part.
//
//     struct slow_commits : agentrt::testkit::engine_decorator {
//         using engine_decorator::engine_decorator;
//         void write(...) override { pause(); engine_decorator::write(work, flush); }
//     };
//     agentrt::store s(std::make_shared<slow_commits>(agentrt::store::open(path)->engine()));
//
// The test kit's crash points and fault injection are decorators: the runtime above cannot tell them
// from the engine they wrap.
#pragma once

#include <agentrt/runtime/engine.hpp>

#include <memory>
#include <utility>

namespace agentrt::testkit {

class engine_decorator : public engine {
public:
    explicit engine_decorator(std::shared_ptr<engine> inner) : inner_(std::move(inner)) {}

    std::string const& location() const noexcept override { return inner_->location(); }
    agentrt::durability durability() const noexcept override { return inner_->durability(); }
    void read(std::function<void(store_reader const&)> const& work) const override { inner_->read(work); }
    void write(std::function<void(engine_writer&)> const& work, bool flush) override { inner_->write(work, flush); }
    std::string const& host() const noexcept override { return inner_->host(); }
    std::int64_t process_id() const noexcept override { return inner_->process_id(); }
    bool holder_alive(lease_record const& lease) const override { return inner_->holder_alive(lease); }
    result<void> backup(std::filesystem::path const& destination) const override { return inner_->backup(destination); }
    store_stats stats() const override { return inner_->stats(); }

    engine& inner() const noexcept { return *inner_; }

private:
    std::shared_ptr<engine> inner_;
};

} // namespace agentrt::testkit
