"""Bookings in the admin: the list staff search and filter, and the booking page: a readable summary
(route, pickup, itemised price, payment, customer, history) with the actions the booking's state allows,
each a small form that calls one service."""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import get_language_info
from django.utils.translation import gettext_lazy as _

from apikit.errors import DomainError
from booking import history, presentation, ride, transitions, trips
from booking.models import Booking, BookingStatus
from dispatch import assignment, changes, job_links, phone, planning, rerouting, ride_day, windows
from dispatch.admin import board as dispatch_views
from dispatch.admin.forms import AssignForm, ChangeForm, PhoneBookingForm
from dispatch.phone import PhonePayment
from invoicing import documents
from payments import cancellation, document_balance, ledger, payment_updates, refunds, surcharges
from payments.admin.forms import MarkPaidForm, RefundForm
from payments.admin.refund import refund_view
from payments.models import Refund, Surcharge
from pricing.models import VehicleClass
from pricing.money import from_cents
from pricing.quote import is_offered, price_by_hand_of
from sitekit import l10n


class NoteForm(forms.Form):
    text = forms.CharField(
        label=_("Internal note"), widget=forms.Textarea(attrs={"rows": 2}), max_length=2000
    )


class PickupFilter(admin.SimpleListFilter):
    """The days dispatch plans by, in Vienna time."""

    title = _("pickup")
    parameter_name = "pickup"
    RANGES = {
        "today": (_("Today"), 0, 1),
        "tomorrow": (_("Tomorrow"), 1, 2),
        "next7": (_("Next 7 days"), 0, 7),
        "past7": (_("Past 7 days"), -7, 0),
    }

    def lookups(self, request, model_admin):
        return [(key, label) for key, (label, _start, _end) in self.RANGES.items()]

    def queryset(self, request, queryset):
        if self.value() not in self.RANGES:
            return queryset
        _label, start, end = self.RANGES[self.value()]
        begin, until = planning.days_from_today(start, end)
        return queryset.filter(pickup_at__gte=begin, pickup_at__lt=until)


class VehicleClassFilter(admin.SimpleListFilter):
    """The classes by the names staff know, not their codes."""

    title = _("class")
    parameter_name = "vehicle_class"

    def lookups(self, request, model_admin):
        return [(item.code, item.display_name) for item in VehicleClass.objects.all()]

    def queryset(self, request, queryset):
        return queryset.filter(vehicle_class=self.value()) if self.value() else queryset


@admin.register(Booking)
class BookingAdmin(admin.ModelAdmin):
    list_display = [
        "reference",
        "pickup",
        "status",
        "route",
        "class_name",
        "driver",
        "amount",
        "name",
        "phone",
    ]
    list_display_links = ["reference"]
    list_filter = ["status", PickupFilter, VehicleClassFilter, "channel", "driver"]
    search_fields = ["reference", "name", "email", "phone", "origin", "destination"]
    list_select_related = ["driver"]
    ordering = ["-pickup_at"]
    actions = ["mark_completed"]

    @admin.display(description=_("pickup"), ordering="pickup_at")
    def pickup(self, booking: Booking) -> str:
        return l10n.day_time(booking.pickup_at) if booking.pickup_at else "—"

    @admin.display(description=_("route"))
    def route(self, booking: Booking) -> str:
        return f"{booking.origin} → {booking.destination_shown}"

    @admin.display(description=_("class"), ordering="vehicle_class")
    def class_name(self, booking: Booking) -> str:
        return presentation.vehicle_name(booking.vehicle_class)

    @admin.display(description=_("amount"), ordering="amount_cents")
    def amount(self, booking: Booking) -> str:
        return l10n.money(from_cents(booking.amount_cents), booking.currency)

    def add_view(self, request: HttpRequest, form_url: str = "", extra_context=None):
        """A phone booking: the server prices it; "Quote" shows the price without storing anything."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        self.ensure_staff_choices_allowed(request)
        form = PhoneBookingForm(
            request.POST or None,
            initial={"payment": PhonePayment.LINK},
            may_record_payment=self.has_record_payment_permission(request),
            may_set_price=self.has_set_price_permission(request),
            may_record_past=self.has_record_past_ride_permission(request),
        )
        priced = None
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            choices = {
                "short_notice": data["short_notice"],
                "past_ride": data.get("past_ride", False),
                "price_by_hand": form.price_by_hand(),
            }
            try:
                if "_quote" in request.POST:
                    on_account = (
                        data.get("company_account") if data["payment"] == PhonePayment.ACCOUNT else None
                    )
                    priced = phone.quote(form.ride(), company_account=on_account, **choices)
                else:
                    booking = phone.book_by_phone(
                        ride=form.ride(),
                        payment=data["payment"],
                        user=request.user,
                        actor=history.staff(request.user),
                        company_account=data.get("company_account"),
                        **choices,
                    )
                    self.message_user(request, phone_booked(booking), messages.SUCCESS)
                    return redirect(reverse("admin:booking_booking_change", args=[booking.pk]))
            except DomainError as refusal:  # nothing was stored, or a pending booking whose page failed
                form.add_error(refusal.field if refusal.field in form.fields else None, refusal.in_words())
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Phone booking"),
            "form": form,
            "media": self.media + form.media,  # core.js (quickElement) before the calendar and clock
            "priced": priced,
            "lines": presentation.quote_lines(
                priced.quote, values={"stops": [stop.address for stop in form.cleaned_data["stops"]]}
            )
            if priced
            else [],
        }
        return TemplateResponse(request, "admin/booking/booking/phone.html", context)

    def has_delete_permission(self, request, obj=None):
        return False  # a paid booking is a record of money received: cancel it instead

    # Money moves are permissions of their own (Booking.Meta.permissions), not part of "change".
    def has_refund_permission(self, request, obj=None):
        return request.user.has_perm(f"{self.opts.app_label}.refund_booking")

    def has_record_payment_permission(self, request, obj=None):
        return request.user.has_perm(f"{self.opts.app_label}.record_payment")

    # Beyond the tariff and the clock (Booking.Meta.permissions): a price set by hand, a past ride recorded.
    def has_set_price_permission(self, request, obj=None):
        return request.user.has_perm(f"{self.opts.app_label}.set_price")

    def has_record_past_ride_permission(self, request, obj=None):
        return request.user.has_perm(f"{self.opts.app_label}.record_past_ride")

    def ensure_staff_choices_allowed(self, request) -> None:
        """A form sent with a price set by hand or a past ride by staff whose form offers neither: refused
        (403), as the form would silently leave them out."""
        if request.method != "POST":
            return
        priced = request.POST.get("price", "").strip() or request.POST.get("price_reason", "").strip()
        if priced and not self.has_set_price_permission(request):
            raise PermissionDenied
        if request.POST.get("past_ride") and not self.has_record_past_ride_permission(request):
            raise PermissionDenied

    @admin.action(description=_("Mark as completed (ride done)"), permissions=["change"])
    def mark_completed(self, request, queryset):
        done, refused, ahead = [], [], []
        for booking in queryset:
            try:
                done.append(transitions.complete_by_staff(booking.pk, actor=history.staff(request.user)))
            except transitions.InvalidTransition:
                refused.append(f"{booking.reference} ({booking.get_status_display()})")
            except transitions.RideAhead:
                ahead.append(
                    f"{booking.reference} ({l10n.day_time(booking.pickup_at) if booking.pickup_at else '—'})"
                )
        if done:
            completed = ", ".join(booking.reference for booking in done)
            self.message_user(request, _("Completed: %s.") % completed, messages.SUCCESS)
        if refused:
            not_done = _("Not completed, as their state does not allow it: %s.") % ", ".join(refused)
            self.message_user(request, not_done, messages.WARNING)
        if ahead:
            not_yet = _("Not completed, as their pickup time has not come: %s.") % ", ".join(ahead)
            self.message_user(request, not_yet, messages.WARNING)

    # --- the booking page --------------------------------------------------------------------------------

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("dispatch/", view(self.dispatch_board), name="booking_booking_dispatch"),
            path("dispatch/rides.csv", view(self.dispatch_export), name="booking_booking_dispatch_export"),
            path("<int:pk>/do/<slug:action>/", view(self.act), name="booking_booking_act"),
            path("<int:pk>/refund/", view(self.refund), name="booking_booking_refund"),
            *super().get_urls(),
        ]

    def dispatch_board(self, request: HttpRequest) -> HttpResponse:
        if not self.has_view_or_change_permission(request):
            raise PermissionDenied
        # The board needs the whole width: no navigation sidebar.
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "is_nav_sidebar_enabled": False,
        }
        return dispatch_views.board_view(request, context)

    def dispatch_export(self, request: HttpRequest) -> HttpResponse:
        if not self.has_view_or_change_permission(request):
            raise PermissionDenied
        return dispatch_views.export_view(request)

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "", extra_context=None):
        booking = self.get_object(request, object_id)
        if booking is None:
            raise Http404(_("No such booking."))
        if not self.has_view_or_change_permission(request, booking):
            raise PermissionDenied
        may = {
            "change": self.has_change_permission(request, booking),
            "refund": self.has_refund_permission(request, booking),
            "record_payment": self.has_record_payment_permission(request, booking),
            "set_price": self.has_set_price_permission(request, booking),
            "record_past_ride": self.has_record_past_ride_permission(request, booking),
        }
        page = page_context(booking, may=may)
        context = {
            **self.admin_site.each_context(request),
            **page,
            "opts": self.opts,
            "title": _("Booking %s") % booking.reference,
            "media": self.media + page["change_form"].media,  # core.js before the calendar and clock
        }
        return TemplateResponse(request, "admin/booking/booking/page.html", context)

    def act(self, request: HttpRequest, pk: int, action: str) -> HttpResponse:
        booking = get_object_or_404(Booking, pk=pk)
        if action not in ACTIONS:
            raise Http404(_("No such action."))
        handler, permission = ACTIONS[action]
        if request.method != "POST" or not getattr(self, f"has_{permission}_permission")(request, booking):
            raise PermissionDenied
        settled_by_staff = action == "change" and not request.POST.get("through_provider")
        if settled_by_staff and not self.has_record_payment_permission(request, booking):
            raise PermissionDenied  # staff take or hand over the difference themselves
        if action == "change":
            self.ensure_staff_choices_allowed(request)
        try:
            self.message_user(request, handler(request, booking), messages.SUCCESS)
        except Invalid as invalid:
            self.message_user(request, f"{booking.reference}: {invalid}", messages.ERROR)
        except DomainError as refusal:  # the service said no: nothing changed
            self.message_user(request, f"{booking.reference}: {refusal.in_words()}", messages.ERROR)
        return redirect(reverse("admin:booking_booking_change", args=[booking.pk]))

    def refund(self, request: HttpRequest, pk: int) -> HttpResponse:
        booking = get_object_or_404(Booking, pk=pk)
        if not self.has_refund_permission(request, booking):
            raise PermissionDenied
        context = {**self.admin_site.each_context(request), "opts": self.opts}
        return refund_view(request, booking, context)


def phone_booked(booking: Booking) -> str:
    if booking.company_account is not None:
        paid = _("on account of %s (its monthly invoice)") % booking.company_account.name
    elif booking.paid_at:
        paid = _("marked paid by %s") % booking.get_payment_method_display()
    else:
        paid = _("payment link e-mailed to %s") % booking.email
    return _("%(ref)s booked by phone at %(price)s; %(paid)s.") % {
        "ref": booking.reference,
        "price": l10n.money(booking.quote.price),
        "paid": paid,
    }


class Invalid(Exception):
    """A form of the booking page did not validate; the message says what to correct."""


def valid(form):
    if not form.is_valid():
        labels = {name: field.label for name, field in form.fields.items()}
        raise Invalid(
            "; ".join(f"{labels.get(name, name)}: {' '.join(errors)}" for name, errors in form.errors.items())
        )
    return form.cleaned_data


def _assign(request, booking: Booking) -> str:
    data = valid(AssignForm(request.POST, booking=booking))
    assigned = assignment.assign(
        booking.pk,
        driver_id=data["driver"].pk,
        vehicle_id=data["vehicle"].pk,
        actor=history.staff(request.user),
    )
    said = _("%(ref)s: %(driver)s with %(vehicle)s; the booking is %(state)s; driver and customer are told.")
    return said % {
        "ref": assigned.reference,
        "driver": assigned.driver,
        "vehicle": assigned.vehicle,
        "state": assigned.get_status_display(),
    }


def _complete(request, booking: Booking) -> str:
    transitions.complete_by_staff(booking.pk, actor=history.staff(request.user))
    return _("%s: marked completed.") % booking.reference


def _undo_ride_step(request, booking: Booking) -> str:
    last = booking.ride_steps.filter(undone_at__isnull=True).order_by("at", "pk").last()
    ride_day.undo_last(booking.pk, actor=history.staff(request.user))
    return _("%(ref)s: the ride step “%(state)s” is undone.") % {
        "ref": booking.reference,
        "state": last.get_state_display() if last else "—",
    }


def _revoke_job_link(request, booking: Booking) -> str:
    if not job_links.revoke(booking.pk, actor=history.staff(request.user)):
        raise Invalid(_("no job link to revoke."))
    return _("%s: the job link is revoked; it no longer opens the job.") % booking.reference


def _cancel(request, booking: Booking) -> str:
    cancelled = cancellation.cancel(
        booking.pk, actor=history.staff(request.user), by_staff=True, requested_by=request.user
    )
    fee = from_cents(cancelled.cancellation_fee_cents or 0)
    said = _("%(ref)s: cancelled under the policy; fee kept %(fee)s, %(refund)s refunded.")
    return said % {
        "ref": cancelled.reference,
        "fee": l10n.money(fee),
        "refund": l10n.money(from_cents(refunds.committed_cents(cancelled))),
    }


def _mark_paid(request, booking: Booking) -> str:
    data = valid(MarkPaidForm(request.POST))
    paid = payment_updates.mark_paid(
        booking.pk, method=data["method"], user=request.user, actor=history.staff(request.user)
    )
    return _("%(ref)s: marked paid by %(method)s (%(user)s); the confirmation goes to the customer.") % {
        "ref": booking.reference,
        "method": paid.get_payment_method_display(),
        "user": request.user.get_username(),
    }


def _note(request, booking: Booking) -> str:
    data = valid(NoteForm(request.POST))
    history.record(booking, history.Kind.NOTE, data["text"], actor=history.staff(request.user))  # as typed
    return _("%s: note added.") % booking.reference


def _change(request, booking: Booking) -> str:
    may_set_price = request.user.has_perm("booking.set_price")
    form = ChangeForm(
        request.POST,
        booking=booking,
        may_set_price=may_set_price,
        may_record_past=request.user.has_perm("booking.record_past_ride"),
    )
    data = valid(form)
    by_hand = form.price_by_hand() if may_set_price else None
    # new addresses or stops are routed here, before the change locks the booking (`seen` then refuses a
    # booking changed meanwhile)
    ride = rerouting.wanted(booking, data["pickup"], **form.wanted(), by_staff=True)
    agreed = price_by_hand_of(booking.quote) is not None or is_offered(booking.quote)
    if agreed and not may_set_price and _ride_of(ride) != _ride_of(rerouting.as_booked(booking)):
        raise DomainError(
            _(
                "This ride's price was agreed by hand or by an offer: changing its route, party or extras "
                "needs the permission to set prices."
            )
        )
    change = changes.change_ride(
        booking.pk,
        pickup=data["pickup"],
        vehicle_class=data["vehicle_class"],
        ride=ride,
        through_provider=data["through_provider"],
        actor=history.staff(request.user),
        user=request.user,
        short_notice=data["short_notice"],
        past_ride=data.get("past_ride", False),
        price_by_hand=by_hand,
        tariff_price=may_set_price and by_hand is None,  # the field cleared: the tariff's price again
        seen=data["seen"] or None,
    )
    settled = f"; {change.settlement.shown()}" if change.settlement else ""
    said = f"{booking.reference}: {change.summary.shown()}{settled}."
    other = trips.other_leg(booking)
    if other is not None and (ride.origin, ride.destination) != (booking.origin, booking.destination):
        kept = _("The return trip's other ride {reference} keeps its addresses: change it too if it should.")
        return f"{said} {str(kept).format(reference=other.reference)}"
    return said


def _ride_of(ride: rerouting.Ride) -> tuple:
    """What a price agreed by hand or by an offer was agreed for: the route, the party and the extras."""
    return (ride.origin, ride.destination, ride.stops, ride.passengers, ride.luggage, ride.extras)


def _refund_paid_back(request, booking: Booking) -> str:
    owed = get_object_or_404(Refund, pk=request.POST.get("refund", 0), booking=booking)
    refunds.confirm_paid_back(owed.pk, actor=history.staff(request.user))
    return _("%(ref)s: refund of %(amount)s paid back.") % {
        "ref": booking.reference,
        "amount": l10n.money(owed.amount),
    }


def _owed(request, booking: Booking) -> Surcharge:
    pk = request.POST.get("surcharge", "")
    if not pk.isdigit():
        raise Http404(_("No such amount."))
    return get_object_or_404(Surcharge, pk=pk, booking=booking)


def _charge_collected(request, booking: Booking) -> str:
    owed = _owed(request, booking)
    collected = surcharges.collect(booking.pk, owed.pk, actor=history.staff(request.user), user=request.user)
    return _("%(ref)s: %(what)s of %(amount)s collected.") % {
        "ref": booking.reference,
        "what": collected.get_reason_display(),
        "amount": l10n.money(collected.amount),
    }


def _charge_waived(request, booking: Booking) -> str:
    owed = _owed(request, booking)
    waived = surcharges.waive(booking.pk, owed.pk, actor=history.staff(request.user))
    return _("%(ref)s: %(what)s of %(amount)s waived.") % {
        "ref": booking.reference,
        "what": waived.get_reason_display(),
        "amount": l10n.money(waived.amount),
    }


# Each action and the permission it needs (BookingAdmin.has_<permission>_permission); the refund itself
# has a page of its own (payments/admin/refund.py).
ACTIONS = {
    "assign": (_assign, "change"),
    "complete": (_complete, "change"),
    "cancel": (_cancel, "change"),
    "mark-paid": (_mark_paid, "record_payment"),
    "note": (_note, "change"),
    "change": (_change, "change"),  # and record_payment when staff settle the difference (BookingAdmin.act)
    "refund-paid-back": (_refund_paid_back, "refund"),
    "charge-collected": (_charge_collected, "record_payment"),  # waiting time or a no-show fee owed
    "charge-waived": (_charge_waived, "record_payment"),
    "undo-ride-step": (_undo_ride_step, "change"),
    "revoke-job-link": (_revoke_job_link, "change"),
}


def language_name(code: str) -> str:
    """ "Englisch" for "en" in a German admin; an unknown code as it is."""
    try:
        return str(get_language_info(code)["name_translated"])
    except KeyError:
        return code or "—"


def page_context(booking: Booking, *, may: dict[str, bool]) -> dict:
    """What the booking page shows; the forms only where the state and the staff's permissions allow."""
    can_change = may["change"]
    moves = transitions.next_states(booking)
    terms = cancellation.terms(booking, by_staff=True)
    refundable = refunds.refundable_cents(booking)
    balance = document_balance.balance(booking)
    return {
        "booking": booking,
        "class_name": presentation.vehicle_name(booking.vehicle_class),
        "language_name": language_name(booking.locale),
        "quote": booking.quote,
        "lines": presentation.price_lines(booking, detailed=True),
        "stops": presentation.stops_shown(booking),
        "other_ride": trips.other_leg(booking),  # a return trip's: one payment, each ride its own
        "history": [
            (event, history.wording(event), history.actor_shown(event.actor))
            for event in booking.history.all()
        ],
        "vat_percent": booking.quote.vat_rate * 100,
        "refunds": booking.refunds.select_related("requested_by"),
        "surcharges": booking.surcharges.all(),
        "invoices": documents.invoices_of(booking),  # a way back's ride is on its trip's invoice
        "credit_notes": booking.credit_notes.select_related("invoice"),
        "balance": balance,
        "documented": from_cents(balance.documented_cents),
        "kept": from_cents(balance.kept_cents),
        "refundable": from_cents(refundable),
        "received": from_cents(ledger.received_cents(booking)),  # with its company's payments on account
        "payments": ledger.shares_of(booking),
        "checkout_page": ledger.checkout_of(booking),
        "terms": terms,
        "fee": from_cents(terms.fee_cents),
        "refund_due": from_cents(terms.refund_cents),
        "can_change": can_change,
        "can_act": any(may.values()),
        "may_refund": may["refund"],
        "may_settle": may["record_payment"],
        "can_mark_paid": may["record_payment"] and BookingStatus.PAID in moves,
        "can_assign": can_change and booking.status in assignment.ASSIGNABLE,
        "can_complete": can_change and transitions.completable(booking),
        "can_cancel": can_change and terms.allowed,
        "can_change_ride": can_change and booking.status in changes.CHANGEABLE,
        "can_refund": may["refund"] and refundable > 0,
        "assign_form": AssignForm(booking=booking),
        "change_form": ChangeForm(
            booking=booking,
            may_settle=may["record_payment"],
            may_set_price=may["set_price"],
            may_record_past=may["record_past_ride"],
        ),
        "refund_form": RefundForm(),  # never filled in: staff type the amount they mean
        "mark_paid_form": MarkPaidForm(),
        "note_form": NoteForm(),
        "window": windows.ride_window(booking),
        "now": timezone.now(),
        "ride_day": ride_day_context(booking, can_change=can_change),
    }


def ride_day_context(booking: Booking, *, can_change: bool) -> dict:
    """The ride's steps (undone ones kept and marked), the job's live links, and what staff may do."""
    steps = list(booking.ride_steps.order_by("at", "pk"))
    links = job_links.live(booking)
    return {
        "steps": [
            (step, history.actor_shown(step.actor), history.actor_shown(step.undone_by)) for step in steps
        ],
        "state": ride.progress(booking).state,
        "links": links,
        "can_undo": can_change and any(step.undone_at is None for step in steps),
        "can_revoke": can_change and bool(links),
    }
