"""Papers of chauffeurs and cars (fleet/models.py, fleet/papers.py, dispatch/papers.py): a chauffeur or a car
whose paper is no longer valid on the ride's day is refused, in every path that gives or keeps them a ride;
staff and the chauffeur are reminded once; the lists and the board show what expires; scans stay private."""

from datetime import date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.core import mail
from django.utils import timezone, translation

from booking.models import Booking, BookingEvent
from dispatch import reminders
from dispatch.models import Reminder, RideDayPolicy
from fleet.models import DriverPaper, VehiclePaper
from jobqueue.models import Job
from sitekit import l10n
from tests.admin_forms import change_form_data
from tests.dispatch.conftest import assign
from tests.queued import run_pending_jobs

VIENNA = ZoneInfo("Europe/Vienna")
pytestmark = pytest.mark.django_db
PDF = b"%PDF-1.7\n% a scanned licence\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64


def at(day: date, hour: int = 10) -> datetime:
    return datetime(day.year, day.month, day.day, hour, tzinfo=VIENNA)


def shown(day: date, language: str = "en") -> str:
    with translation.override(language):
        return l10n.day(day)


def snapshot():
    return list(Booking.objects.order_by("pk").values_list("status", "driver", "vehicle", "pickup_at"))


def in_ten_days() -> date:
    return timezone.localdate() + timedelta(days=10)


# --- refused where a ride gets or keeps its chauffeur and car ----------------------------------------------


def test_a_chauffeur_whose_licence_ends_before_the_ride_is_refused_and_nothing_changes(
    admin_client, fleet, ride
):
    ends = in_ten_days()
    DriverPaper.objects.create(driver=fleet["karl"], kind="taxi_licence", number="TL-4711", expires_on=ends)
    booking = ride(at(ends + timedelta(days=1)))
    before = snapshot()
    response = admin_client.post(
        f"/admin/booking/booking/{booking.pk}/do/assign/",
        {"driver": fleet["karl"].pk, "vehicle": fleet["sedan"].pk},
        follow=True,
        HTTP_ACCEPT_LANGUAGE="en",
    )
    said = [str(message) for message in response.context["messages"]]
    assert said == [
        f"{booking.reference}: Karl Huber: the taxi driver's licence (Taxilenkerausweis) TL-4711 is valid until "
        f"{shown(ends)}, and this ride is on {shown(ends + timedelta(days=1))}. Add the renewed paper on the "
        "driver's page first."
    ]
    assert snapshot() == before and not BookingEvent.objects.exists() and not Job.objects.exists()
    german = admin_client.post(
        f"/admin/booking/booking/{booking.pk}/do/assign/",
        {"driver": fleet["karl"].pk, "vehicle": fleet["sedan"].pk},
        follow=True,
        HTTP_ACCEPT_LANGUAGE="de",
    )
    assert "Taxilenkerausweis TL-4711 gilt bis" in str(next(iter(german.context["messages"])))
    assert snapshot() == before
    # the assign form names why before staff choose him; a ride before the expiry does not
    page = admin_client.get(f"/admin/booking/booking/{booking.pk}/change/", HTTP_ACCEPT_LANGUAGE="en")
    assert f"TL-4711 is valid until {shown(ends)})</option>" in page.content.decode()
    earlier = ride(at(ends))
    page = admin_client.get(f"/admin/booking/booking/{earlier.pk}/change/", HTTP_ACCEPT_LANGUAGE="en")
    assert f'<option value="{fleet["karl"].pk}">Karl Huber</option>' in page.content.decode()


def test_the_last_valid_day_drives_and_a_renewal_replaces_the_expired_paper(fleet, ride):
    ends = in_ten_days()
    DriverPaper.objects.create(driver=fleet["karl"], kind="taxi_licence", expires_on=ends)
    on_the_day = assign(ride(at(ends, hour=20)), fleet["karl"], fleet["sedan"])
    assert on_the_day.status == "confirmed"
    later = ride(at(ends + timedelta(days=3)))
    with pytest.raises(Exception, match="valid until"):
        assign(later, fleet["karl"], fleet["sedan"])
    DriverPaper.objects.create(
        driver=fleet["karl"], kind="taxi_licence", expires_on=ends + timedelta(days=1500)
    )
    assert assign(later, fleet["karl"], fleet["sedan"]).driver == fleet["karl"]


def test_a_ride_into_the_next_day_needs_papers_valid_on_its_last_day(fleet, ride):
    ends = in_ten_days()
    VehiclePaper.objects.create(vehicle=fleet["sedan"], kind="inspection", expires_on=ends)
    late_night = ride(at(ends, hour=23) + timedelta(minutes=50))  # 25 minutes: it ends after midnight
    with pytest.raises(Exception) as refused:
        assign(late_night, fleet["karl"], fleet["sedan"])
    assert refused.value.code == "papers_expired" and refused.value.field == "vehicle"
    assert "W-1000A (E-Class): the inspection (§57a)" in str(refused.value.detail)


def test_a_car_with_an_expired_insurance_is_refused_and_kinds_never_recorded_refuse_nothing(fleet, ride):
    VehiclePaper.objects.create(vehicle=fleet["sedan"], kind="insurance", expires_on=timezone.localdate())
    booking = ride()  # in two days
    with pytest.raises(Exception) as refused:
        assign(booking, fleet["karl"], fleet["sedan"])
    assert refused.value.code == "papers_expired" and "insurance" in str(refused.value.detail)
    assert assign(booking, fleet["karl"], fleet["sedan2"]).vehicle == fleet["sedan2"]  # holds no papers yet


def test_moving_an_assigned_ride_past_an_expiry_is_refused_and_nothing_changes(admin_client, fleet, ride):
    ends = in_ten_days()
    routed = {"distance_km": Decimal("18.5"), "in_zone_a": True}
    booking = assign(ride(at(ends - timedelta(days=2)), **routed), fleet["karl"], fleet["sedan"])
    DriverPaper.objects.create(driver=fleet["karl"], kind="driving_licence", number="B-1", expires_on=ends)
    before, events = snapshot(), BookingEvent.objects.count()

    def move_to(day: date):
        data = {"pickup_0": f"{day:%d.%m.%Y}", "pickup_1": "10:00", "vehicle_class": "executive"}
        response = admin_client.post(f"/admin/booking/booking/{booking.pk}/do/change/", data, follow=True)
        return [str(message) for message in response.context["messages"]]

    refused = move_to(ends + timedelta(days=1))
    assert "Karl Huber: the driving licence B-1 is valid until" in refused[0]
    assert snapshot() == before and BookingEvent.objects.count() == events
    move_to(ends)
    booking.refresh_from_db()
    assert timezone.localtime(booking.pickup_at) == at(ends)


# --- reminded once -------------------------------------------------------------------------------------------


def test_staff_and_the_chauffeur_are_reminded_once_with_the_rides_that_need_the_paper(fleet, ride, settings):
    settings.OPERATOR_EMAIL = "office@chauffeur.test"
    ends = timezone.localdate() + timedelta(days=20)
    paper = DriverPaper.objects.create(
        driver=fleet["karl"], kind="taxi_licence", number="TL-9", expires_on=ends
    )
    VehiclePaper.objects.create(
        vehicle=fleet["van"], kind="inspection", expires_on=ends + timedelta(days=400)
    )
    after = assign(ride(at(ends - timedelta(days=1))), fleet["karl"], fleet["sedan"])
    Booking.objects.filter(pk=after.pk).update(pickup_at=at(ends + timedelta(days=2)))  # moved by hand before
    run_pending_jobs()  # the assignment's mails
    mail.outbox.clear()
    assert reminders.send_due().papers == 1
    assert reminders.send_due().papers == 0  # the next run finds its reminder row
    run_pending_jobs()
    staff, chauffeur = sorted(mail.outbox, key=lambda sent: sent.to != ["office@chauffeur.test"])
    assert (
        staff.subject
        == f"Taxi driver's licence (Taxilenkerausweis) of Karl Huber valid until {ends:%d.%m.%Y}"
    )
    assert (
        f"Karl Huber: the taxi driver's licence (Taxilenkerausweis) (no. TL-9) is valid until {ends:%d.%m.%Y}"
        in (staff.body)
    )
    assert after.reference in staff.body and f"/admin/fleet/driver/{fleet['karl'].pk}/change/" in staff.body
    assert chauffeur.to == ["karl@chauffeur.test"] and chauffeur.subject.startswith(
        "Taxilenkerausweis von Karl"
    )
    assert "Ihr Dokument „Taxilenkerausweis“ (Nr. TL-9) gilt bis" in chauffeur.body
    assert after.reference not in chauffeur.body and "/admin/" not in chauffeur.body
    mail.outbox.clear()
    paper.expires_on = ends - timedelta(days=1)  # a corrected date is a new reminder
    paper.save()
    assert reminders.send_due().papers == 1


def test_a_paper_renewed_before_its_reminder_goes_out_sends_nothing(fleet, settings):
    settings.OPERATOR_EMAIL = "office@chauffeur.test"
    soon = timezone.localdate() + timedelta(days=5)
    VehiclePaper.objects.create(vehicle=fleet["sedan"], kind="registration", expires_on=soon)
    DriverPaper.objects.create(driver=fleet["mira"], kind="taxi_licence", expires_on=soon)
    fleet["mira"].active = False
    fleet["mira"].save()
    assert reminders.send_due().papers == 1  # the car's; the inactive chauffeur's is not
    VehiclePaper.objects.create(
        vehicle=fleet["sedan"], kind="registration", expires_on=soon + timedelta(days=900)
    )
    run_pending_jobs()
    assert mail.outbox == [] and Reminder.objects.count() == 1
    assert reminders.send_due().papers == 0  # the renewal is far off


def test_the_reminders_days_are_the_policys_and_zero_turns_them_off(fleet):
    RideDayPolicy.objects.create(pk=1, paper_reminder_days=7)
    DriverPaper.objects.create(driver=fleet["karl"], kind="taxi_licence", expires_on=in_ten_days())
    assert reminders.send_due().papers == 0
    with time_machine.travel(at(in_ten_days() - timedelta(days=7), hour=9)):
        assert reminders.send_due().papers == 1
    RideDayPolicy.objects.filter(pk=1).update(paper_reminder_days=0)
    Reminder.objects.all().delete()
    assert reminders.send_due().papers == 0


# --- what staff see ------------------------------------------------------------------------------------------


def test_the_driver_list_and_the_board_show_what_expires_soon(admin_client, fleet, ride):
    ends = timezone.localdate() + timedelta(days=4)
    DriverPaper.objects.create(driver=fleet["karl"], kind="taxi_licence", expires_on=ends)
    DriverPaper.objects.create(driver=fleet["karl"], kind="driving_licence")  # never expires
    DriverPaper.objects.create(
        driver=fleet["mira"], kind="taxi_licence", expires_on=ends + timedelta(days=300)
    )
    listing = admin_client.get("/admin/fleet/driver/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f"⚠ taxi driver&#x27;s licence (Taxilenkerausweis) until {shown(ends)}" in listing
    assert "⚠ missing: driving licence" in listing  # Mira's
    attention = admin_client.get("/admin/fleet/driver/?papers=attention").context["cl"].result_list
    assert [driver.name for driver in attention] == ["Karl Huber"]
    missing = admin_client.get("/admin/fleet/driver/?papers=missing").context["cl"].result_list
    assert [driver.name for driver in missing] == ["Mira Novak"]
    cars = admin_client.get(
        "/admin/fleet/vehicle/?papers=missing", HTTP_ACCEPT_LANGUAGE="de"
    ).content.decode()
    assert "fehlt: Konzession, Zulassungsschein, Begutachtung (§57a), Versicherung" in cars
    near = assign(ride(at(ends - timedelta(days=1))), fleet["karl"], fleet["sedan"])
    after = assign(ride(at(ends - timedelta(days=2))), fleet["karl"], fleet["sedan2"])
    Booking.objects.filter(pk=after.pk).update(pickup_at=at(ends + timedelta(days=1)))  # moved by hand before
    board = admin_client.get("/admin/booking/booking/dispatch/?range=next7", HTTP_ACCEPT_LANGUAGE="en")
    page = board.content.decode()
    assert 'id="papers"' in page and "1 ride assigned after that day" in page
    assert f"valid until {shown(ends)}" in page and page.count("Papers expire before this ride") == 1
    lanes = board.context["lanes"]
    flagged = {card["ride"].pk: card["papers_lapse"] for _lane, days in lanes for day in days for card in day}
    assert flagged == {near.pk: False, after.pk: True}


# --- scans ---------------------------------------------------------------------------------------------------


def papers_form(admin_client, driver, **fields) -> dict:
    data = change_form_data(admin_client.get(f"/admin/fleet/driver/{driver.pk}/change/"))
    return {
        **data,
        "papers-TOTAL_FORMS": "1",
        **{f"papers-0-{name}": value for name, value in fields.items()},
    }


def test_staff_add_a_paper_with_its_scan_and_only_those_who_may_see_papers_open_it(
    admin_client, client, django_user_model, fleet
):
    from django.core.files.uploadedfile import SimpleUploadedFile

    karl = fleet["karl"]
    data = papers_form(
        admin_client,
        karl,
        kind="taxi_licence",
        number="TL-1",
        expires_on="31.12.2030",
        scan_file=SimpleUploadedFile("ausweis.png", PNG, content_type="image/png"),
    )
    assert admin_client.post(f"/admin/fleet/driver/{karl.pk}/change/", data).status_code == 302
    paper = DriverPaper.objects.get()
    assert (paper.number, paper.expires_on, paper.scan_type, bytes(paper.scan)) == (
        "TL-1",
        date(2030, 12, 31),
        "image/png",
        PNG,
    )
    url = f"/admin/fleet/driver/{karl.pk}/papers/{paper.pk}/scan/"
    assert url in admin_client.get(f"/admin/fleet/driver/{karl.pk}/change/").content.decode()
    opened = admin_client.get(url)
    assert opened.content == PNG and opened["Content-Type"] == "image/png"
    assert "no-store" in opened["Cache-Control"] and "sandbox" in opened["Content-Security-Policy"]
    assert client.get(url).status_code == 302  # to the sign-in
    viewer = django_user_model.objects.create_user("vera", password="pw-123456789", is_staff=True)
    from config.roles import ROLES, permissions

    viewer.user_permissions.set(permissions(ROLES["Viewer"]))
    client.force_login(viewer)
    assert client.get(url).status_code == 403
    assert "TL-1" not in client.get(f"/admin/fleet/driver/{karl.pk}/change/").content.decode()
    assert (
        admin_client.get(f"/admin/fleet/driver/{fleet['mira'].pk}/papers/{paper.pk}/scan/").status_code == 404
    )


def test_a_pdf_scan_is_downloaded_and_a_file_of_another_kind_is_refused_changing_nothing(admin_client, fleet):
    from django.core.files.uploadedfile import SimpleUploadedFile

    karl = fleet["karl"]
    refused = admin_client.post(
        f"/admin/fleet/driver/{karl.pk}/change/",
        papers_form(
            admin_client,
            karl,
            kind="taxi_licence",
            scan_file=SimpleUploadedFile(
                "ausweis.html", b"<script>alert(1)</script>", content_type="image/png"
            ),
        ),
    )
    assert refused.status_code == 200 and "Upload a PDF, JPEG or PNG file." in refused.content.decode()
    assert not DriverPaper.objects.exists()
    admin_client.post(
        f"/admin/fleet/driver/{karl.pk}/change/",
        papers_form(
            admin_client,
            karl,
            kind="driving_licence",
            scan_file=SimpleUploadedFile("führerschein.pdf", PDF, content_type="application/pdf"),
        ),
    )
    paper = DriverPaper.objects.get()
    opened = admin_client.get(f"/admin/fleet/driver/{karl.pk}/papers/{paper.pk}/scan/")
    assert opened["Content-Disposition"].startswith("attachment;") and opened.content == PDF
    data = change_form_data(admin_client.get(f"/admin/fleet/driver/{karl.pk}/change/"))
    admin_client.post(f"/admin/fleet/driver/{karl.pk}/change/", {**data, "papers-0-remove_scan": "on"})
    paper.refresh_from_db()
    assert (paper.scan, paper.scan_type, paper.kind) == (None, "", "driving_licence")
