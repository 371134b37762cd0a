"""A traveller signs in with a mailed one-time code (oauth/travellers.py, /oauth/sign-in): the code
goes out through the job queue, works once, for ten minutes, five wrong tries at most, only in the browser
that asked; the page answers the same for every address and never says whether it has bookings."""

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from jobqueue.models import Delivery
from oauth.models import SignInCode
from oauth.travellers import TRAVELLER_KEY, signed_in_traveller
from tests.booking import conftest as booking_fixtures
from tests.queued import run_pending_jobs

pytestmark = pytest.mark.django_db
make_booking = booking_fixtures.make_booking  # a fixture: a booking priced by the seeded tariffs
PAGE = "/oauth/sign-in"


def ask(client: Client, email: str = "Anna@Example.com", **extra):
    return client.post(PAGE, {"step": "email", "email": email}, **extra)


def enter(client: Client, code: str, **extra):
    return client.post(PAGE, {"step": "code", "code": code}, **extra)


def mailed_code() -> str:
    """Run the queued mail job as the worker would, and read the code from the newest mail."""
    run_pending_jobs()
    return re.search(r"^\s+(\d{6})$", mail.outbox[-1].body, re.M).group(1)


def wrong(code: str) -> str:
    return f"{(int(code) + 1) % 1_000_000:06d}"


def signed_in(client: Client) -> str | None:
    return client.session.get(TRAVELLER_KEY)


def test_the_code_goes_through_the_job_queue_and_signs_the_traveller_in(client, settings):
    settings.DEFAULT_FROM_EMAIL = "bookings@chauffeur.test"
    asked = ask(client)
    assert asked.status_code == 302 and asked["Location"] == PAGE
    assert mail.outbox == []  # not sent in the request: the worker sends it
    (job,) = DBTaskResult.objects.filter(task_path="oauth.tasks.send_sign_in_code")
    row = SignInCode.objects.get()
    code = mailed_code()
    # Neither the job's arguments nor the row hold the code.
    assert code not in str(job.args_kwargs) and code not in {row.digest, row.salt, row.session_key}
    assert code not in str(list(Delivery.objects.values_list("key", flat=True)))  # the sent-once record
    assert row.email == "anna@example.com" and row.session_key != client.session.session_key
    message = mail.outbox[0]
    assert message.to == ["anna@example.com"] and message.from_email.endswith("<bookings@chauffeur.test>")
    assert "10 minutes" in message.body and code in message.subject

    page = client.get(PAGE).content.decode()
    assert "anna@example.com" in page and 'id="code-form"' in page
    key_before = client.session.session_key
    done = enter(client, f" {code[:3]} {code[3:]} ")  # spaces as people type them
    # no authorization request waits for a consent: the traveller's page of the assistants they allowed
    assert done.status_code == 302 and done["Location"] == "/oauth/assistants"
    assert signed_in(client) == "anna@example.com"
    assert client.session.session_key != key_before  # a new key: no session fixation
    row.refresh_from_db()
    assert row.used_at is not None


def test_signed_in_traveller_reads_the_session(client, rf):
    request = rf.get("/")
    request.session = client.session
    assert signed_in_traveller(request) is None
    ask(client)
    enter(client, mailed_code())
    request.session = client.session
    assert signed_in_traveller(request) == "anna@example.com"


def test_the_mail_speaks_the_visitors_language(client):
    ask(client, HTTP_ACCEPT_LANGUAGE="de")
    code = mailed_code()
    assert "Ihr Anmeldecode" in mail.outbox[0].subject and "10 Minuten" in mail.outbox[0].body
    page = client.get(PAGE + "?lang=de").content.decode()
    assert "Wir haben einen 6-stelligen Code" in page and code not in page


def test_lang_in_the_address_wins_and_is_kept_for_the_consent_page(client):
    asked = client.post(PAGE + "?lang=de", {"step": "email", "email": "anna@example.com"})
    assert asked["Location"] == PAGE + "?lang=de" and asked.cookies["django_language"].value == "de"
    mailed_code()
    assert mail.outbox[0].subject.startswith("Ihr Anmeldecode")


def refused_changes_nothing(client, before_attempts: int) -> None:
    assert signed_in(client) is None
    row = SignInCode.objects.get()
    assert row.used_at is None and row.attempts == before_attempts


def test_a_wrong_code_counts_a_try_and_signs_nobody_in(client):
    ask(client)
    code = mailed_code()
    answer = enter(client, wrong(code))
    assert answer.status_code == 200 and "That is not the code. 4 more tries." in answer.content.decode()
    refused_changes_nothing(client, 1)
    assert enter(client, code)["Location"] == "/oauth/assistants"  # the right one still works


def test_five_wrong_tries_kill_the_code(client):
    ask(client)
    code = mailed_code()
    for _ in range(4):
        enter(client, wrong(code))
    last = enter(client, wrong(code)).content.decode()
    assert "no longer works" in last
    refused_changes_nothing(client, 5)
    after = enter(client, code).content.decode()  # even the right code now
    assert "no longer works" in after
    refused_changes_nothing(client, 5)


def test_an_expired_code_is_refused(client):
    ask(client)
    code = mailed_code()
    SignInCode.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert "no longer works" in enter(client, code).content.decode()
    refused_changes_nothing(client, 0)


def test_a_code_works_once(client):
    ask(client)
    code = mailed_code()
    enter(client, code)
    session = client.session
    session.pop(TRAVELLER_KEY)
    session["oauth.sign_in"] = "anna@example.com"  # the same browser tries the same code again
    session.save()
    again = enter(client, code)
    assert again.status_code == 200 and "no longer works" in again.content.decode()
    assert signed_in(client) is None


def test_a_code_works_only_in_the_browser_that_asked(client):
    ask(client)
    code = mailed_code()
    other = Client()
    session = other.session
    session["oauth.sign_in"] = "anna@example.com"  # the other browser even claims the address
    session.save()
    answer = enter(other, code)
    assert "no longer works" in answer.content.decode()
    assert other.session.get(TRAVELLER_KEY) is None
    refused_changes_nothing(client, 0)


def test_a_new_code_replaces_the_one_before(client):
    ask(client)
    first = mailed_code()
    ask(client)
    second = mailed_code()
    assert len(mail.outbox) == 2
    old, new = SignInCode.objects.order_by("created_at")
    assert old.expires_at <= timezone.now() < new.expires_at
    if first != second:  # the old code is now just a wrong one
        assert "That is not the code" in enter(client, first).content.decode()
        assert signed_in(client) is None
    assert enter(client, second)["Location"] == "/oauth/assistants"


def test_a_code_replaced_before_the_worker_came_is_not_mailed(client):
    ask(client)
    ask(client)
    run_pending_jobs()
    assert len(mail.outbox) == 1


def test_a_job_run_again_does_not_mail_the_code_twice(client):
    from oauth.sign_in_codes import send_code

    ask(client)
    run_pending_jobs()
    assert send_code(SignInCode.objects.get().pk, "en") is False  # the job again, e.g. after a crash
    assert len(mail.outbox) == 1


def test_five_codes_per_address_an_hour(client):
    for _ in range(5):
        assert ask(Client(), "anna@example.com").status_code == 302
    refused = ask(client, "ANNA@example.com")
    html = refused.content.decode()
    assert refused.status_code == 429 and refused["Content-Type"].startswith("text/html")
    assert "Too many codes were asked for. Please try again in 60 minutes." in html
    assert SignInCode.objects.count() == 5 and DBTaskResult.objects.count() == 5
    assert ask(client, "ben@example.com").status_code == 302  # another address may


def test_twenty_codes_per_client_an_hour(client):
    for number in range(20):
        assert ask(Client(), f"person{number}@example.com").status_code == 302
    refused = ask(client, "new@example.com")
    assert refused.status_code == 429 and "Too many codes were asked for" in refused.content.decode()
    assert not SignInCode.objects.filter(email="new@example.com").exists()
    assert ask(client, "new@example.com", REMOTE_ADDR="192.0.2.7").status_code == 302  # another client may


def test_the_per_address_limit_holds_with_the_shared_cache_down(client, cache_down):
    for _ in range(5):
        assert ask(Client(), "anna@example.com").status_code == 302
    assert ask(client).status_code == 429


def test_the_page_is_the_same_for_any_address(make_booking):
    """An address with bookings and one nobody knows: the same redirect, the same page, the same mail."""
    make_booking(email="has-bookings@example.com")
    pages = []
    for email in ("has-bookings@example.com", "nobody@example.com"):
        client = Client()
        asked = ask(client, email)
        assert (asked.status_code, asked["Location"]) == (302, PAGE)
        page = client.get(PAGE).content.decode().replace(email, "ADDRESS")
        pages.append(re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", page))
    assert pages[0] == pages[1] and "We have sent a 6-digit code to <strong>ADDRESS</strong>" in pages[0]
    run_pending_jobs()
    first, second = (re.sub(r"\d{6}", "CODE", message.body) for message in mail.outbox)
    assert first == second


def test_a_malformed_address_is_asked_again(client):
    answer = ask(client, "not an address")
    assert answer.status_code == 200 and "Please enter a valid e-mail address." in answer.content.decode()
    assert not SignInCode.objects.exists() and not DBTaskResult.objects.exists()


def test_the_code_step_without_an_address_shows_the_first_step(client):
    answer = enter(client, "123456")
    html = answer.content.decode()
    assert 'id="email-form"' in html and "Please enter a valid" not in html
    assert not SignInCode.objects.exists()


def test_another_address_and_a_new_sign_in_signs_out_the_first(client):
    ask(client)
    enter(client, mailed_code())
    page = client.get(PAGE).content.decode()
    assert "You are signed in as anna@example.com." in page
    assert "anna@example.com" not in client.get(PAGE + "?another=1").content.decode()
    ask(client, "ben@example.com")
    assert signed_in(client) is None  # someone else is signing in in this browser


def test_the_page_cannot_be_framed_or_cached_and_has_no_inline_script(client):
    for answer in (client.get(PAGE), client.get(PAGE + "?lang=de")):
        assert answer["X-Frame-Options"] == "DENY"
        assert "frame-ancestors 'none'" in answer["Content-Security-Policy"]
        assert "no-store" in answer["Cache-Control"]
        html = answer.content.decode()
        assert "<script" not in html and " style=" not in html and "<style" not in html
        assert 'name="csrfmiddlewaretoken"' in html


def test_the_forms_need_the_csrf_token(db):
    client = Client(enforce_csrf_checks=True)
    assert ask(client).status_code == 403
    assert not SignInCode.objects.exists()


def test_german_and_english(client):
    german = client.get(PAGE, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Mit Ihrer E-Mail-Adresse anmelden" in german and "Sign in with" not in german
    assert '<html lang="de">' in german
    english = client.get(PAGE + "?lang=en", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Sign in with your e-mail address" in english and '<html lang="en">' in english
