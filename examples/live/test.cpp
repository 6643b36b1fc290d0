// The live example, run as a program against a fake OpenAI-compatible server on loopback.
#include <agentrt/testkit/fake_provider.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <sys/wait.h>

using agentrt::testkit::fake_provider;
using agentrt::testkit::provider_reply;
using agentrt::testkit::wire_format;

namespace {

struct ran {
    int status = -1;
    std::string output;
};

ran run(std::string const& command) {
    ran out;
    auto* pipe = ::popen((command + " 2>&1").c_str(), "r");
    REQUIRE(pipe);
    std::array<char, 4096> buffer{};
    for (std::size_t n; (n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0;)
        out.output.append(buffer.data(), n);
    auto const status = ::pclose(pipe);
    out.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return out;
}

std::string quoted(std::string const& s) {
    return "'" + s + "'";
}

} // namespace

TEST_CASE("live example: without an endpoint it says how to configure one and exits") {
    auto r = run("env -u AGENTRT_LIVE_URL " + quoted(AGENTRT_LIVE));
    CHECK(r.status == 2);
    CHECK(r.output.find("No model endpoint is configured") != std::string::npos);
    CHECK(r.output.find("AGENTRT_LIVE_URL=http://127.0.0.1:11434/v1") != std::string::npos);
}

TEST_CASE("live example: prints each step, waits for an operator's approval, and finishes after it") {
    auto const dir = std::filesystem::temp_directory_path() / ("agentrt-live-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    fake_provider server(
        wire_format::openai,
        {provider_reply::call("lookup_order", R"({"order_id":"ord-1042"})"),
         provider_reply::call("send_email",
                              R"({"to":"lead@partner.example","subject":"ord-1042","body":"Refund on its way."})"),
         provider_reply::text("The partner was told about the refund.")});
    auto const environment = "AGENTRT_LIVE_PROVIDER=openai AGENTRT_LIVE_URL=" + server.base_url() +
                             " AGENTRT_LIVE_MODEL=llama3.2 AGENTRT_LIVE_KEY_VARIABLE= ";
    auto const store = quoted((dir / "store").string());

    auto first = run(environment + quoted(AGENTRT_LIVE) + " --store " + store);
    INFO(first.output);
    CHECK(first.status == 0);
    CHECK(first.output.find("step 0: the model calls lookup_order {\"order_id\":\"ord-1042\"}") != std::string::npos);
    CHECK(first.output.find("  done: {\"customer\":\"ana\"") != std::string::npos);
    CHECK(first.output.find("  awaiting_approval: waits for an operator") != std::string::npos);
    CHECK(first.output.find("step 1: the model calls send_email") != std::string::npos);
    CHECK(first.output.find("is waiting_for_approval") != std::string::npos);
    auto const at = first.output.find("--resume ");
    REQUIRE(at != std::string::npos);
    auto const run_id = first.output.substr(at + 9, first.output.find('\n', at) - at - 9);

    auto approved = run(quoted(AGENTRT_CLI) + " --store " + store + " approve " + run_id + " --yes");
    INFO(approved.output);
    CHECK(approved.status == 0);

    auto second = run(environment + quoted(AGENTRT_LIVE) + " --store " + store + " --resume " + run_id);
    INFO(second.output);
    CHECK(second.status == 0);
    CHECK(second.output.find("  done: {\"sent_to\":\"lead@partner.example\"}") != std::string::npos);
    CHECK(second.output.find("is completed: The partner was told about the refund.") != std::string::npos);
    CHECK(server.remaining() == 0);
    for (auto const& r : server.requests())
        CHECK_MESSAGE(r.refused.empty(), r.refused);
    std::filesystem::remove_all(dir);
}
