"""The permission matrix (docs/staff/back-office.md "Staff permissions"): five staff roles × every admin page and action we own.
Each cell either is allowed (the page answers 200, the action has its effect) or refused (403, or the page
answers with the refusal shown) with nothing changed in the database. The table below is the whole
specification: a role not named in a row's `allowed` is refused."""

import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from access.models import ApiToken
from access.tokens import issue_token
from booking.models import Booking, BookingEvent, CancellationPolicy
from corporate.models import CompanyAccount
from dispatch.models import RideDayPolicy
from fleet.models import Driver, DriverPaper, Vehicle
from invoicing.collective_invoices import previous_month
from invoicing.models import Invoice
from operator_profile.models import PROFILE_ID, OperatorProfile
from payments import collective_invoices
from payments.models import AccountPayment, Refund
from pricing.models import Tariff, Tour, VehicleClass
from pricing.services import quote_price
from privacy.models import DataRequest, Hold, RetentionPolicy
from tests.admin_forms import change_form_data
from tests.booking.conftest import paid_ride

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]

# The staff guide's roles (config/roles.py, made by `manage.py staff_roles`) by the name the cells use.
ROLES: dict[str, str | None] = {
    "viewer": "Viewer",
    "dispatcher": "Dispatcher",
    "accountant": "Accountant",
    "token_manager": "Token manager",
    "superuser": None,
}
EVERYONE_WHO_SEES_BOOKINGS = {"viewer", "dispatcher", "accountant", "superuser"}
READERS = {"viewer", "dispatcher", "superuser"}
ACCOUNTS = {"accountant", "superuser"}


@dataclass
class World:
    """What a cell acts on, made on demand; `boss` is a superuser's client that reads forms for a role."""

    make_booking: Callable[..., Booking]
    boss: Client

    def paid(self, **fields) -> Booking:
        return self.make_booking(**{**paid_ride(), **fields})

    def invoiced(self) -> Booking:
        """Paid by invoice: its refunds are made by staff, outside the payment provider."""
        return self.paid(payment_method="invoice", payment_intent_id="")

    def pending(self) -> Booking:
        return self.paid(status="pending_payment", paid_at=None)

    def form_of(self, path: str, **changes) -> dict:
        data = change_form_data(self.boss.get(path))
        return {**data, **changes}


Send = Callable[[Client], object]  # one request (or two steps) as the role's client; the response


@dataclass(frozen=True)
class Cell:
    allowed: set[str]
    prepare: Callable[[World], Send]  # makes what the cell acts on, then returns its request
    state: Callable[[], object] | None = None  # what the action changes; None: a page that only shows
    # Roles refused by a page that still answers 200 and says so (an action the role is not offered):
    said: dict[str, str] = field(default_factory=dict)


def get(path: str) -> Callable[[World], Send]:
    return lambda world: lambda client: client.get(path, follow=True)


def on_booking(make: str, action: str, data: dict | None = None) -> Callable[[World], Send]:
    def prepare(world: World) -> Send:
        booking = getattr(world, make)()
        return lambda client: client.post(f"/admin/booking/booking/{booking.pk}/do/{action}/", data or {})

    return prepare


def booking_page(world: World) -> Send:
    booking = world.paid()
    return lambda client: client.get(f"/admin/booking/booking/{booking.pk}/change/")


def refund_page(world: World) -> Send:
    booking = world.invoiced()
    return lambda client: client.get(f"/admin/booking/booking/{booking.pk}/refund/")


def refund_twice(world: World) -> Send:
    """Both steps, the confirmation sent twice: an allowed role refunds once."""
    url = f"/admin/booking/booking/{world.invoiced().pk}/refund/"

    def send(client):
        first = client.post(url, {"amount": "20,00", "reason": "Goodwill"})
        if first.status_code != 200:
            return first
        confirm = {"amount": "20.00", "reason": "Goodwill", "key": first.context["key"], "confirm": "1"}
        client.post(url, confirm)
        return client.post(url, confirm)

    return send


def paid_back(world: World) -> Send:
    booking = world.invoiced()
    owed = Refund.objects.create(booking=booking, amount_cents=500, status="pending", method="manual")
    url = f"/admin/booking/booking/{booking.pk}/do/refund-paid-back/"
    return lambda client: client.post(url, {"refund": owed.pk})


def assign(world: World) -> Send:
    booking = world.paid()
    karl = Driver.objects.create(name="Karl Huber", phone="+43 660 1112223")
    executive = VehicleClass.objects.get(code="executive")
    sedan = Vehicle.objects.create(plate="W-1000A", vehicle_class=executive, seats=3, luggage=3)
    url = f"/admin/booking/booking/{booking.pk}/do/assign/"
    return lambda client: client.post(url, {"driver": karl.pk, "vehicle": sedan.pk})


def change_ride(
    *, settled_by_staff: bool, pickup: datetime | None = None, **extra
) -> Callable[[World], Send]:
    def prepare(world: World) -> Send:
        moved = pickup or (timezone.localtime() + timedelta(days=4)).replace(hour=11, minute=0)
        data = {
            "pickup_0": moved.strftime("%d.%m.%Y"),
            "pickup_1": moved.strftime("%H:%M"),
            "vehicle_class": "executive",
            "through_provider": "" if settled_by_staff else "1",
            **extra,
        }
        url = f"/admin/booking/booking/{world.paid().pk}/do/change/"
        return lambda client: client.post(url, data)

    return prepare


def phone_booking(payment: str, *, days: int = 2, **extra) -> Callable[[World], Send]:
    pickup = timezone.localtime() + timedelta(days=days)
    data = {
        "origin": "Hotel Sacher",
        "destination": "Flughafen Wien",
        "pickup_0": pickup.strftime("%d.%m.%Y"),
        "pickup_1": "09:30",
        "vehicle_class": "executive",
        "booking_type": "distance",
        "name": "Franz Gruber",
        "phone": "+43 660 9876543",
        "email": "franz@example.com",
        "locale": "de",
        "payment": payment,
        "_book": "Book",
        **extra,
    }
    return lambda world: lambda client: client.post("/admin/booking/booking/add/", data)


def an_account() -> CompanyAccount:
    address = {
        "street_address": "Ring 1",
        "postcode": "1010",
        "city": "Wien",
        "billing_email": "ap@acme.example",
    }
    return CompanyAccount.objects.create(name="Acme Handels GmbH", **address)


def a_collective_invoice() -> Invoice:
    """Last month's collective invoice of a company account, 74 EUR open."""
    account = an_account()
    last_month = previous_month(timezone.localdate())
    Booking.objects.create(
        reference="CB-ACCT01",
        origin="Hotel Sacher",
        destination="Flughafen Wien",
        vehicle_class="executive",
        quote_record=quote_price(vehicle_class="executive", distance_km=Decimal("21.8")).as_record(),
        amount_cents=7400,
        booking_data={},
        payment_method="account",
        company_account=account,
        status="completed",
        paid_at=timezone.now(),
        pickup_at=datetime.combine(
            last_month.replace(day=10), time(9), tzinfo=timezone.get_current_timezone()
        ),
    )
    return collective_invoices.issue(account, last_month)[0]


def transfer_received(world: World) -> Send:
    url = f"/admin/invoicing/invoice/{a_collective_invoice().pk}/payment/"
    data = {"amount": "74,00", "received_on": timezone.localdate().isoformat(), "note": "Transfer"}
    return lambda client: client.post(url, data)


def transfer_page(world: World) -> Send:
    url = f"/admin/invoicing/invoice/{a_collective_invoice().pk}/payment/"
    return lambda client: client.get(url)


def list_action(model: str, action: str, make: Callable[[World], object]) -> Callable[[World], Send]:
    def prepare(world: World) -> Send:
        data = {"action": action, "_selected_action": [make(world).pk], "index": 0}
        return lambda client: client.post(f"/admin/{model}/", data, follow=True)

    return prepare


def edit(path: Callable[[], str], **changes) -> Callable[[World], Send]:
    """A change page's form as it stands (read by a superuser), with `changes`, saved by the role."""

    def prepare(world: World) -> Send:
        url = path()
        data = world.form_of(url, **changes)
        return lambda client: client.post(url, data)

    return prepare


def a_token(world=None) -> ApiToken:
    return ApiToken.objects.first() or issue_token(name="Hotel concierge", scopes=["booking.read"])[0]


def issue_for_account(world: World) -> Send:
    account = an_account()
    data = {
        "name": "Acme travel desk",
        "scopes": ["booking.write"],
        "company_account": account.pk,
        "expires_at_0": "",
        "expires_at_1": "",
        "rate_limit": "",
    }
    return lambda client: client.post("/admin/access/apitoken/add/", data)


def a_driver() -> Driver:
    return Driver.objects.first() or Driver.objects.create(name="Karl Huber", phone="1")


def a_scan(world: World) -> Send:
    paper = DriverPaper.objects.create(
        driver=a_driver(),
        kind="taxi_licence",
        scan=b"%PDF-1.7",
        scan_name="a.pdf",
        scan_type="application/pdf",
    )
    url = f"/admin/fleet/driver/{paper.driver_id}/papers/{paper.pk}/scan/"
    return lambda client: client.get(url)


def first_record(model) -> Callable[[World], Send]:
    """The add page of a one-record policy, sent with its defaults."""
    url = f"/admin/{model._meta.app_label}/{model._meta.model_name}/add/"
    form = {field.name: field.default for field in model._meta.fields if field.name != "id"}
    return lambda world: lambda client: client.post(url, form)


def place_hold(world: World) -> Send:
    data = {"booking": world.paid().reference, "reason": "The fare is disputed", "until": ""}
    return lambda client: client.post("/admin/privacy/hold/add/", data)


def log_data_request(world: World) -> Send:
    now = timezone.localtime()
    data = {
        "email": "anna@example.com",
        "kind": "access",
        "note": "",
        "received_at_0": now.strftime("%Y-%m-%d"),
    }
    data["received_at_1"] = now.strftime("%H:%M:%S")
    return lambda client: client.post("/admin/privacy/datarequest/add/", data)


def a_vehicle() -> Vehicle:
    executive = VehicleClass.objects.get(code="executive")
    return Vehicle.objects.first() or Vehicle.objects.create(
        plate="W-1", vehicle_class=executive, seats=3, luggage=3
    )


def only(model, field_name: str) -> Callable[[], object]:
    return lambda: sorted(model.objects.values_list(field_name, flat=True))


# A list action the role is not offered: Django shows the read-only list ("Select booking to view") again.
NOT_OFFERED = " to view | "

CELLS: dict[str, Cell] = {
    # --- bookings: pages
    "booking list": Cell(EVERYONE_WHO_SEES_BOOKINGS, get("/admin/booking/booking/")),
    "booking page": Cell(EVERYONE_WHO_SEES_BOOKINGS, booking_page),
    "dispatch board": Cell(EVERYONE_WHO_SEES_BOOKINGS, get("/admin/booking/booking/dispatch/")),
    "dispatch export": Cell(EVERYONE_WHO_SEES_BOOKINGS, get("/admin/booking/booking/dispatch/rides.csv")),
    "phone booking form": Cell({"dispatcher", "superuser"}, get("/admin/booking/booking/add/")),
    "refund page": Cell({"accountant", "superuser"}, refund_page),
    # --- bookings: actions
    "assign": Cell({"dispatcher", "superuser"}, assign, only(Booking, "driver_id")),
    "cancel": Cell({"dispatcher", "superuser"}, on_booking("paid", "cancel"), only(Booking, "status")),
    "note": Cell(
        {"dispatcher", "superuser"},
        on_booking("paid", "note", {"text": "Child seat"}),
        only(BookingEvent, "text"),
    ),
    "change ride (through the provider)": Cell(
        {"dispatcher", "superuser"}, change_ride(settled_by_staff=False), only(Booking, "pickup_at")
    ),
    "change ride (settled by staff)": Cell(
        {"superuser"}, change_ride(settled_by_staff=True), only(Booking, "pickup_at")
    ),
    "change ride at short notice": Cell(
        {"dispatcher", "superuser"},
        change_ride(
            settled_by_staff=False,
            pickup=(timezone.localtime() + timedelta(minutes=40)).replace(second=0, microsecond=0),
            short_notice="on",
        ),
        only(Booking, "pickup_at"),
    ),
    "change ride: a price set by hand": Cell(
        {"superuser"},
        change_ride(settled_by_staff=False, price="90,00", price_reason="Agreed congress price"),
        only(Booking, "amount_cents"),
    ),
    "change ride: a past ride recorded": Cell(
        {"superuser"},
        change_ride(settled_by_staff=False, pickup=timezone.localtime() - timedelta(days=1), past_ride="on"),
        only(Booking, "pickup_at"),
    ),
    "phone booking: a price set by hand": Cell(
        {"superuser"},
        phone_booking("link", price="90,00", price_reason="Agreed congress price"),
        only(Booking, "reference"),
    ),
    "phone booking: a past ride recorded": Cell(
        {"superuser"}, phone_booking("link", days=-1, past_ride="on"), only(Booking, "reference")
    ),
    "phone booking (payment link)": Cell(
        {"dispatcher", "superuser"}, phone_booking("link"), only(Booking, "reference")
    ),
    "phone booking (paid in cash)": Cell(
        {"superuser"},
        phone_booking("cash"),
        only(Booking, "reference"),
        said={"dispatcher": "Select a valid choice"},
    ),
    "mark completed (list action)": Cell(
        {"dispatcher", "superuser"},
        list_action(
            "booking/booking",
            "mark_completed",
            # a ride whose pickup has come: one ahead cannot be completed by anyone
            lambda world: world.paid(status="confirmed", pickup_at=timezone.now() - timedelta(hours=1)),
        ),
        only(Booking, "status"),
        said={"viewer": NOT_OFFERED, "accountant": NOT_OFFERED},
    ),
    "mark paid by invoice": Cell(
        {"accountant", "superuser"},
        on_booking("pending", "mark-paid", {"method": "invoice"}),
        only(Booking, "status"),
    ),
    "refund (confirmed twice)": Cell({"accountant", "superuser"}, refund_twice, only(Refund, "amount_cents")),
    "refund paid back": Cell({"accountant", "superuser"}, paid_back, only(Refund, "status")),
    # --- money: reports, documents, company accounts
    "monthly revenue": Cell(EVERYONE_WHO_SEES_BOOKINGS, get("/admin/revenue/")),
    "export for the accountant": Cell(ACCOUNTS, get("/admin/accounting-export/")),
    "invoice list": Cell(ACCOUNTS, get("/admin/invoicing/invoice/")),
    "credit note list": Cell(ACCOUNTS, get("/admin/invoicing/creditnote/")),
    "company account list": Cell({*READERS, "accountant"}, get("/admin/business/companyaccount/")),
    "collective invoice: the transfer form": Cell(ACCOUNTS, transfer_page),
    "collective invoice: a transfer recorded": Cell(
        ACCOUNTS, transfer_received, only(AccountPayment, "payment__amount_cents")
    ),
    # --- API tokens
    "token list": Cell({*READERS, "token_manager"}, get("/admin/access/apitoken/")),
    "token page": Cell(
        {*READERS, "token_manager"},
        lambda world: (lambda url: lambda client: client.get(url))(
            f"/admin/access/apitoken/{a_token().pk}/change/"
        ),
    ),
    "token edit": Cell(
        {"token_manager", "superuser"},
        edit(lambda: f"/admin/access/apitoken/{a_token().pk}/change/", name="Renamed"),
        only(ApiToken, "name"),
    ),
    "token issued, tied to a company account": Cell(
        {"token_manager", "superuser"}, issue_for_account, only(ApiToken, "company_account")
    ),
    "token revoke (list action)": Cell(
        {"token_manager", "superuser"},
        list_action("access/apitoken", "revoke_selected", a_token),
        only(ApiToken, "revoked_at"),
        said={"viewer": NOT_OFFERED, "dispatcher": NOT_OFFERED},
    ),
    # --- fleet
    "driver list": Cell(READERS, get("/admin/fleet/driver/")),
    "driver edit": Cell(
        {"dispatcher", "superuser"},
        edit(lambda: f"/admin/fleet/driver/{a_driver().pk}/change/", phone="+43 660 9990000"),
        only(Driver, "phone"),
    ),
    "driver's paper added": Cell(
        {"dispatcher", "superuser"},
        edit(
            lambda: f"/admin/fleet/driver/{a_driver().pk}/change/",
            phone="+43 660 1112223",  # a_driver's placeholder is none
            **{
                "papers-TOTAL_FORMS": "1",
                "papers-0-kind": "taxi_licence",
                "papers-0-expires_on": "31.12.2030",
            },
        ),
        only(DriverPaper, "kind"),
    ),
    # Scans of personal documents: those who keep the papers, not every reader.
    "a paper's scan": Cell({"dispatcher", "superuser"}, a_scan),
    "vehicle list": Cell(READERS, get("/admin/fleet/vehicle/")),
    "vehicle edit": Cell(
        {"dispatcher", "superuser"},
        edit(lambda: f"/admin/fleet/vehicle/{a_vehicle().pk}/change/", plate="W-2"),
        only(Vehicle, "plate"),
    ),
    # --- prices and policies
    "tariff list": Cell(READERS, get("/admin/pricing/tariff/")),
    "tariff edit": Cell(
        {"superuser"},
        edit(lambda: f"/admin/pricing/tariff/{Tariff.objects.first().pk}/change/", base_fare="31.00"),
        only(Tariff, "base_fare"),
    ),
    "vehicle class list": Cell(READERS, get("/admin/pricing/vehicleclass/")),
    "tour list": Cell(READERS, get("/admin/pricing/tour/")),
    "tour edit": Cell(
        {"superuser"},
        edit(lambda: f"/admin/pricing/tour/{Tour.objects.first().pk}/change/", order="42"),
        only(Tour, "order"),
    ),
    "lead-time policy": Cell(READERS, get("/admin/booking/leadtimepolicy/")),
    "cancellation policy": Cell(READERS, get("/admin/booking/cancellationpolicy/")),
    "cancellation policy edit": Cell(
        {"superuser"},
        edit(lambda: "/admin/booking/cancellationpolicy/1/change/", late_fee_percent="40"),
        only(CancellationPolicy, "late_fee_percent"),
    ),
    "rating snapshot": Cell(READERS, get("/admin/places/ratingsnapshot/")),
    "retention policy": Cell(READERS, get("/admin/privacy/retentionpolicy/")),
    # A policy's first record is added like any other: only with the add permission.
    "retention policy set": Cell({"superuser"}, first_record(RetentionPolicy), only(RetentionPolicy, "pk")),
    "ride-day policy set": Cell({"superuser"}, first_record(RideDayPolicy), only(RideDayPolicy, "pk")),
    "holds": Cell({"viewer", "dispatcher", "accountant", "superuser"}, get("/admin/privacy/hold/")),
    "hold placed": Cell(ACCOUNTS, place_hold, only(Hold, "reason")),
    "data requests": Cell(READERS, get("/admin/privacy/datarequest/")),
    "data request logged": Cell({"dispatcher", "superuser"}, log_data_request, only(DataRequest, "email")),
    "operator profile": Cell(READERS, get("/admin/company/operatorprofile/")),
    "operator profile edit": Cell(
        {"superuser"},
        edit(lambda: f"/admin/company/operatorprofile/{PROFILE_ID}/change/", phone="+43 1 555 55 55"),
        only(OperatorProfile, "phone"),
    ),
}


@pytest.fixture
def world(make_booking, admin_client) -> World:
    return World(make_booking, admin_client)


def signed_in(client: Client, role: str) -> Client:
    group = ROLES[role]
    if group is None:
        user = User.objects.create_superuser(role, password="pw")
    else:
        call_command("staff_roles", stdout=io.StringIO())
        user = User.objects.create_user(role, password="pw", is_staff=True)
        user.groups.add(Group.objects.get(name=group))
    client.force_login(user)
    return client


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", CELLS)
def test_each_role_may_do_what_its_permissions_say_and_nothing_else(client, world, name, role):
    cell = CELLS[name]
    send = cell.prepare(world)
    before = cell.state() if cell.state else None
    response = send(signed_in(client, role))
    allowed = role in cell.allowed
    if cell.state is None:  # a page
        assert response.status_code == (200 if allowed else 403), response.status_code
        return
    after = cell.state()
    if allowed:
        assert response.status_code in (200, 302), response.status_code
        assert after != before, "the action had no effect"
        return
    if role in cell.said:
        assert response.status_code == 200 and cell.said[role] in response.content.decode()
    else:
        assert response.status_code == 403, response.status_code
    assert after == before  # nothing changed


def test_a_refund_confirmed_twice_is_made_once(client, world):
    """The cell above for an allowed role, spelled out: one Refund row for two identical confirmations."""
    refund_twice(world)(signed_in(client, "accountant"))
    assert list(Refund.objects.values_list("amount_cents", "method", "status")) == [
        (2000, "manual", "pending")
    ]


@pytest.mark.parametrize(
    ("role", "state", "offered"),
    [
        ("viewer", "paid", set()),
        ("dispatcher", "paid", {"assign", "cancel", "change-ride", "add-note"}),
        ("accountant", "paid", {"refund-button"}),
        ("accountant", "pending_payment", {"mark-paid"}),
        ("dispatcher", "pending_payment", {"cancel", "change-ride", "add-note"}),
        ("superuser", "paid", {"assign", "cancel", "change-ride", "refund-button", "add-note"}),
    ],
)
def test_the_booking_page_offers_each_role_its_own_actions(client, world, role, state, offered):
    booking = world.paid(status=state, paid_at=None) if state == "pending_payment" else world.paid()
    html = signed_in(client, role).get(f"/admin/booking/booking/{booking.pk}/change/").content.decode()
    assert set(re.findall(r'<button type="submit"[^>]* id="([\w-]+)"', html)) == offered
    settle = 'name="through_provider" value=""'
    assert (settle in html) == (role == "superuser")  # settling by staff needs record_payment too


def test_staff_roles_makes_the_guides_groups_and_resets_them_to_their_permissions():
    said = io.StringIO()
    call_command("staff_roles", stdout=said)
    assert said.getvalue().splitlines()[0].startswith("Created 'Viewer': ")
    accountant = Group.objects.get(name="Accountant")
    assert accountant.permissions.filter(codename="view_invoice").exists()  # the export for the accountant
    accountant.permissions.clear()
    money = Permission.objects.filter(codename__in=["refund_booking", "record_payment"])
    Group.objects.get(name="Viewer").permissions.add(*money)
    call_command("staff_roles", stdout=(said := io.StringIO()))
    assert "Reset 'Accountant': 13 permissions." in said.getvalue()
    assert sorted(Group.objects.values_list("name", flat=True)) == [
        "Accountant",
        "Dispatcher",
        "Token manager",
        "Viewer",
    ]
    assert {p.codename for p in Group.objects.get(name="Accountant").permissions.all()} >= {"view_invoice"}
    assert not Group.objects.get(name="Viewer").permissions.filter(codename="refund_booking").exists()
