"""The events an endpoint may subscribe to, in the order a ride lives them. Each delivery's body is
`{"type", "timestamp", "data"}` (Standard Webhooks); `data` always names the booking (`reference`), its
`status`, `pickupDatetime` (Vienna time) and `vehicleClass`, and what the event adds
(docs/api/webhooks.md)."""

from django.utils.translation import gettext_lazy as _

EVENT_TYPES = {
    "booking.paid": _("The booking is paid."),
    "booking.confirmed": _("The booking is confirmed."),
    "chauffeur.assigned": _("A chauffeur and a vehicle are assigned (again, when they change)."),
    "booking.changed": _("The ride was changed: its pickup time, vehicle class or price."),
    "booking.pickup_moved": _("The pickup time moved."),
    "ride.on_the_way": _("The chauffeur is on the way to the pickup."),
    "ride.arrived": _("The chauffeur has arrived at the pickup."),
    "ride.on_board": _("The passenger is on board."),
    "ride.completed": _("The ride is completed."),
    "ride.no_show": _("The passenger did not come."),
    "ride.step_undone": _("Staff took back the ride's last step (a wrong tap)."),
    "booking.cancelled": _("The booking is cancelled."),
    "booking.refunded": _("Money was refunded to the payment it came from."),
}
