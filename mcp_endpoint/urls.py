from django.urls import path

from mcp_endpoint.views import McpView

MCP_PATH = "/api/mcp"

urlpatterns = [path(MCP_PATH.lstrip("/"), McpView.as_view(), name="mcp")]
