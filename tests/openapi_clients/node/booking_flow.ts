// A ride booked through openapi-fetch, typed by what openapi-typescript generated from the live /openapi.json
// (./schema.d.ts, written beside a copy of this file by tests/openapi_clients/test_generated_clients.py):
// distance, price, checkout, read, list, cancel. Usage: node booking_flow.ts BASE TOKEN; prints what each
// step answered as one JSON object.
import { randomUUID } from "node:crypto";

import createClient from "openapi-fetch";

import type { paths } from "./schema.js";

const [base, token] = process.argv.slice(2);
const client = createClient<paths>({ baseUrl: base, headers: { Authorization: `Bearer ${token}` } });

// A step's data, or the problem it answered with, and the script stops.
function answered<T>(step: string, result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) {
    throw new Error(`${step}: ${result.response.status} ${JSON.stringify(result.error)}`);
  }
  return result.data;
}

const from = "Hotel Sacher";
const to = "Flughafen Wien";
const pickup = new Date(Date.now() + 3 * 24 * 3600 * 1000);
pickup.setUTCHours(9, 0, 0, 0);

const route = answered("distance", await client.GET("/api/v1/distance", { params: { query: { from, to } } }));
const price = answered(
  "price",
  await client.GET("/api/v1/price", {
    params: { query: { distanceKm: route.distance, vehicleClass: "executive", inZoneA: route.inZoneA } },
  }),
);
const booked = answered(
  "checkout",
  await client.POST("/api/v1/checkout", {
    params: { header: { "Idempotency-Key": randomUUID() } },
    body: {
      amount: Math.round(price.priceEur * 100),
      bookingData: {
        from,
        to,
        pickupDatetime: pickup.toISOString(),
        vehicleClass: "executive",
        name: "Tess Script",
        email: "tess@example.com",
      },
    },
  }),
);
const path = { reference: booked.reference };
const read = answered("read", await client.GET("/api/v1/bookings/{reference}", { params: { path } }));
const listed = answered("list", await client.GET("/api/v1/bookings", { params: { query: { when: "all" } } }));
const cancelled = answered(
  "cancel",
  await client.POST("/api/v1/bookings/{reference}/cancel", { params: { path }, body: {} }),
);
const unknown = await client.GET("/api/v1/bookings/{reference}", { params: { path: { reference: "CB-NONE00" } } });

console.log(
  JSON.stringify({
    priceEur: price.priceEur,
    reference: booked.reference,
    checkoutStatus: booked.status,
    paymentPage: booked.url,
    read: { reference: read.reference, status: read.status, priceEur: read.priceEur },
    listed: listed.bookings.map((booking) => booking.reference),
    cancelled: cancelled.status,
    unknown: { status: unknown.response.status, code: unknown.error?.code },
  }),
);
