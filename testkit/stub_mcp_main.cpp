// agentrt-mcp-stub: the test kit's scripted MCP server (see agentrt/testkit/stub_mcp_server.hpp).
#include <agentrt/testkit/stub_mcp_server.hpp>

int main(int argc, char** argv) {
    return agentrt::testkit::run_stub_mcp_server(argc, argv);
}
