"""Peer "official MCP SDK" of `make bench`: the MCP Python SDK's own server (`mcp`, MCPServer) in stateless
JSON mode, served by uvicorn, with the project's price tool doing the same domain work
(benchmarks/peers/work.py). No token and no rate limit: the SDK asks for neither."""

from decimal import Decimal
from typing import Annotated, Any, Literal

import django
from mcp.server.mcpserver import MCPServer
from pydantic import Field

django.setup()  # bare_django's settings: the offline provider's module defines a model

from benchmarks.peers import work  # noqa: E402

# The SDK logs an INFO line for every stateless request ("Terminating session: None"), through
# rich when rich is importable (here it is, brought by other tools; `pip install mcp` alone has none). The
# project logs only the access line, which both servers keep: the peer logs warnings only, as the project.
server = MCPServer("chauffeur-peer", log_level="WARNING")


@server.tool(name="booking.calculate_price", description="Price a ride from the operator's tariffs.")
def calculate_price(
    distanceKm: Annotated[float, Field(ge=0)],
    vehicleClass: Literal["executive", "first", "business-van"],
    inZoneA: bool = True,
    waitMinutes: Annotated[int, Field(ge=0)] = 0,
) -> dict[str, Any]:
    quote = work.price(
        vehicle_class=vehicleClass,
        distance_km=Decimal(repr(distanceKm)),
        in_zone_a=inZoneA,
        wait_minutes=waitMinutes,
    )
    answer = work.quote_json(quote)
    answer["lines"] = [{**line, "amountEur": float(line["amountEur"])} for line in answer["lines"]]
    return {key: float(value) if isinstance(value, Decimal) else value for key, value in answer.items()}


app = server.streamable_http_app(stateless_http=True, json_response=True)
