"""A traveller's data on request (privacy/traveller_data.py, web/my_data.py): through HTTP as a traveller
signs in with the mailed code, in both languages, the copy holds their bookings and never another
traveller's, and the erasure removes what may go and says what stays and until when; staff log requests
received otherwise, see their deadlines and answer them from the admin."""

import json
import re
from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth.models import Group, User
from django.core import mail
from django.test import Client
from django.utils import timezone

from booking import history
from booking.models import Booking
from config.roles import ensure_roles
from jobqueue.models import Delivery
from oauth.models import OAuthClient, OAuthGrant
from payments import payment_updates
from privacy.models import DataRequest, Hold
from tests.corporate.conftest import operator  # noqa: F401 (the seller's details: invoices are issued)
from tests.oauth.test_assistants_page import allow
from tests.queued import run_pending_jobs

pytestmark = pytest.mark.django_db
YEAR = timezone.localtime().year


@pytest.fixture
def ride(make_booking):
    """A booking of `email`, `days` from now, paid in cash and invoiced unless `paid` is False."""

    def make(email: str, days: int, paid: bool = True, **fields) -> Booking:
        booking = make_booking(
            email=email,
            name=email.split("@")[0].title(),
            phone="+436601234567",
            pickup_at=timezone.now() + timedelta(days=days),
            notes=f"Notes of {email}",
            **fields,
        )
        history.record(booking, history.Kind.NOTE, f"Staff's own note on {email}", actor="eva")
        if paid:
            payment_updates.mark_paid(booking.pk, method="cash", user=None, actor="eva (staff)")
        return booking

    return make


def signed_in(email: str, language: str = "en") -> Client:
    browser = Client(HTTP_ACCEPT_LANGUAGE=language)
    sent_to_sign_in = browser.get(f"/my-data?lang={language}")
    assert sent_to_sign_in["Location"] == f"/oauth/sign-in?next=%2Fmy-data&lang={language}"
    browser.get(sent_to_sign_in["Location"])
    browser.post("/oauth/sign-in", {"step": "email", "email": email})
    run_pending_jobs()
    code = re.search(r"^\s+(\d{6})$", mail.outbox[-1].body, re.M).group(1)
    assert browser.post("/oauth/sign-in", {"step": "code", "code": code})["Location"] == "/my-data"
    return browser


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "to download what we hold about you, or to have it erased"),
        ("de", "um herunterzuladen, was wir über Sie gespeichert haben, oder es löschen zu lassen"),
    ],
)
def test_a_stranger_signs_in_with_the_mailed_code_first(client, language, said):
    page = client.get(client.get(f"/my-data?lang={language}")["Location"]).content.decode()
    assert 'id="for-my-data"' in page and said in page
    assert client.get("/my-data/copy.json").status_code == 302  # no copy without the sign-in


def test_the_copy_holds_the_travellers_own_bookings_and_nothing_of_anothers(ride):
    anna = [ride("anna@example.com", -10), ride("Anna@Example.com", 5, paid=False)]
    ben = ride("ben@example.com", -3)
    browser = signed_in("anna@example.com")
    asked = browser.head("/my-data/copy.json")
    assert asked.status_code == 200 and asked.content == b"" and not DataRequest.objects.exists()
    downloaded = browser.get("/my-data/copy.json")
    assert downloaded["Content-Type"] == "application/json"
    assert downloaded["Content-Disposition"].startswith('attachment; filename="my-data-')
    body = downloaded.content.decode()
    assert "ben@example.com" not in body and ben.reference not in body and "Ben" not in body
    copy = json.loads(body)
    assert [booking["reference"] for booking in copy["bookings"]] == [booking.reference for booking in anna]
    first = copy["bookings"][0]
    assert (first["name"], first["notes"], first["phone"]) == (
        "Anna",
        "Notes of anna@example.com",
        "+436601234567",
    )
    assert [document["number"] for document in first["documents"]] == [f"{YEAR}-000001"]
    assert first["documents"][0]["printed"]["buyer"]["name"] == "Anna"
    assert first["payments"][0]["amountCents"] == 7400
    assert not [entry for entry in first["history"] if "Staff's own note" in entry["text"]]
    logged = DataRequest.objects.get()
    assert (logged.email, logged.kind, logged.channel) == ("anna@example.com", "access", "traveller")
    assert logged.answered_at is not None and logged.outcome == "copy of 2 bookings handed out"
    ben_copy = json.loads(signed_in("ben@example.com").get("/my-data/copy.json").content)
    assert [booking["reference"] for booking in ben_copy["bookings"]] == [ben.reference]


def test_erasure_in_german_removes_what_may_go_and_says_what_stays_and_until_when(ride, oauth_client):
    done, ahead, held = (
        ride("anna@example.com", -10),
        ride("anna@example.com", 5),
        ride("anna@example.com", -20),
    )
    Hold.objects.create(booking=held, reason="Beschwerde offen")
    under_way = ride("anna@example.com", 0)  # picked up just now: its day is not over
    ben = ride("ben@example.com", -10)
    allow(oauth_client, "anna@example.com")
    allow(oauth_client, "ben@example.com")
    Delivery.objects.create(key=f"booking:{done.pk}|anna@example.com|Ihre Buchung")
    browser = signed_in("anna@example.com", "de")
    page = browser.get("/my-data").content.decode()
    assert f"werden aus der Buchung {done.reference} entfernt" in page
    assert (
        "Fahrten, die noch bevorstehen oder heute stattfinden, behalten Ihre Angaben, damit Ihr Chauffeur Sie "
        f"findet und die Fahrt abgerechnet werden kann: {ahead.reference}, {under_way.reference}" in page
    )
    assert (
        f"Aufbewahrt, solange eine Frage zu ihnen offen ist (Streit oder Forderung): {held.reference}" in page
    )
    assert f"bis 31.12.{YEAR + 7} aufzubewahren" in page
    refused = browser.post("/my-data", {})
    assert "Bitte bestätigen Sie mit dem Häkchen." in refused.content.decode()
    assert Booking.objects.get(pk=done.pk).name == "Anna" and not DataRequest.objects.exists()
    erased = browser.post("/my-data", {"confirm": "on"}).content.decode()
    assert "Ihre Angaben wurden aus 1 Buchung entfernt." in erased
    assert "Die Assistenten, denen Sie Zugriff gegeben haben, können nicht mehr für Sie handeln." in erased
    assert f"bis 31.12.{YEAR + 7} aufzubewahren" in erased
    assert Booking.objects.get(pk=done.pk).email == "" and Booking.objects.get(pk=done.pk).origin == "—"
    assert Booking.objects.get(pk=ahead.pk).email == "anna@example.com"  # the ride still to come
    assert Booking.objects.get(pk=held.pk).email == "anna@example.com"  # the dispute
    assert Booking.objects.get(pk=ben.pk).name == "Ben"
    assert not OAuthGrant.objects.filter(traveller_email="anna@example.com").exists()  # ended and forgotten
    assert OAuthGrant.objects.get(traveller_email="").revoked_at is not None
    assert OAuthGrant.objects.get(traveller_email="ben@example.com").revoked_at is None
    # rides still ahead: the records of their messages stay, or a job run again would send them twice
    assert Delivery.objects.filter(key=f"booking:{done.pk}|anna@example.com|Ihre Buchung").exists()
    logged = DataRequest.objects.get()
    assert (logged.kind, logged.channel) == ("erasure", "traveller")
    assert logged.outcome == (
        f"anonymised: {done.reference}; rides still ahead, kept: {ahead.reference}, {under_way.reference}; "
        f"kept under a hold: "
        f"{held.reference}; invoices and credit notes kept until {YEAR + 7}-12-31; assistants' access ended: 1; "
        "quote requests deleted: 0"
    )


def test_the_english_page_and_the_manage_pages_link(ride, client, settings):
    booking = ride("anna@example.com", -10)
    page = signed_in("anna@example.com").get("/my-data").content.decode()
    assert "Signed in as anna@example.com." in page and booking.reference in page
    assert "the law asks us to keep them until 31.12." in page
    from booking import links

    manage = client.get(links.manage_url(booking.reference).removeprefix(settings.PUBLIC_BASE_URL))
    assert manage.content.decode().count('href="/my-data"') == 1


@pytest.fixture
def oauth_client(db) -> OAuthClient:
    return OAuthClient.objects.create(
        client_id="trip",
        registration="dynamic",
        name="Trip Assistant",
        redirect_uris=["https://trip.example/cb"],
    )


def test_staff_log_a_request_see_its_deadline_and_answer_it(ride, client):
    ensure_roles()
    dispatcher = User.objects.create_user("otto", password="pw", is_staff=True)
    dispatcher.groups.add(Group.objects.get(name="Dispatcher"))
    booking = ride("anna@example.com", -10)
    client.force_login(dispatcher)
    received = timezone.localtime() - timedelta(days=40)  # a letter: its answer was due ten days ago
    form = {"email": "anna@example.com", "kind": "erasure", "note": "Brief", "received_at_1": "09:00"}
    form["received_at_0"] = received.strftime("%d.%m.%Y")
    assert client.post("/admin/privacy/datarequest/add/", form, HTTP_ACCEPT_LANGUAGE="de").status_code == 302
    copy_asked = DataRequest.objects.create(email="anna@example.com", kind="access")
    listed = client.get(
        "/admin/privacy/datarequest/?answer=overdue", HTTP_ACCEPT_LANGUAGE="de"
    ).content.decode()
    assert "überfällig" in listed and "Brief" not in listed  # the note is on its page
    assert listed.count('class="overdue"') == 1
    both = {"action": "erase", "_selected_action": [str(r.pk) for r in DataRequest.objects.all()]}
    refused = client.post("/admin/privacy/datarequest/", both, HTTP_ACCEPT_LANGUAGE="de", follow=True)
    assert "Wählen Sie eine offene Anfrage dieser Art" in refused.content.decode()
    assert Booking.objects.get(pk=booking.pk).name == "Anna"
    letter = DataRequest.objects.get(kind="erasure")
    Delivery.objects.create(key=f"sms|booking:{booking.pk}|+436601234567|reminder")
    Delivery.objects.create(key="booking:9|hanna@example.com,ben@example.com|Ihre Buchung")
    answered = client.post(
        "/admin/privacy/datarequest/", {"action": "erase", "_selected_action": [letter.pk]}, follow=True
    )
    kept = list(Delivery.objects.values_list("key", flat=True))
    assert kept == ["booking:9|hanna@example.com,ben@example.com|Ihre Buchung"]  # nothing of anna's is left
    assert answered.status_code == 200 and Booking.objects.get(pk=booking.pk).name == ""
    letter.refresh_from_db()
    assert (letter.answered_by, letter.channel) == (dispatcher, "staff")
    assert letter.outcome.startswith(f"anonymised: {booking.reference}")
    copied = client.post(
        "/admin/privacy/datarequest/", {"action": "hand_out_copy", "_selected_action": [copy_asked.pk]}
    )
    assert copied["Content-Type"] == "application/json"
    assert json.loads(copied.content)["bookings"] == []  # erased just before
    with time_machine.travel(timezone.now() + timedelta(days=1)):
        client.force_login(dispatcher)
        page = client.get(f"/admin/privacy/datarequest/{letter.pk}/change/").content.decode()
    assert 'name="email"' not in page  # answered: the record, read-only
