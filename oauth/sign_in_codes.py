"""The traveller's one-time sign-in code (oauth/travellers.py) and its mail. The code is derived from
a random salt stored in its row and the secret key: the mail job carries only the row's id, and neither
the job table nor the sign-in codes table reveals a code (a 6-digit code's plain SHA-256 would)."""

import math
import re
import secrets
from email.utils import formataddr

from django.conf import settings
from django.core.mail import EmailMessage
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext as _

from jobqueue import delivery
from oauth.models import SignInCode
from operator_profile import legal
from operator_profile.models import CONTROL_CHARACTERS
from operator_profile.services import operator_branding

DIGITS = 6
CODE_SALT = "oauth.sign-in-code"
DIGEST_SALT = "oauth.sign-in-code.digest"


def new_salt() -> str:
    return secrets.token_hex(16)


def code_of(salt: str) -> str:
    """The six digits mailed for a row with this salt."""
    number = int(salted_hmac(CODE_SALT, salt, algorithm="sha256").hexdigest(), 16)
    return f"{number % 10**DIGITS:0{DIGITS}d}"


def digest_of(code: str, salt: str) -> str:
    """What the row stores to check a presented code: keyed, so a stolen table cannot be brute-forced."""
    return salted_hmac(DIGEST_SALT, f"{salt}:{code}", algorithm="sha256").hexdigest()


def send_code(code_id: int, language: str) -> bool:
    """Mail the code of a row that still waits for it; whether a mail went out. A code replaced, used or
    expired before the worker came to it is not sent (the traveller asked for a newer one)."""
    row = SignInCode.objects.filter(pk=code_id).first()
    if row is None or row.used_at is not None or row.expires_at <= timezone.now():
        return False
    language = "de" if language == "de" else "en"
    operator = operator_branding()
    with translation.override(language):
        context = {
            "code": code_of(row.salt),
            "minutes": math.ceil((row.expires_at - row.created_at).total_seconds() / 60),
            "operator": operator,
            "legal_links": legal.links(language),
        }
        text = render_to_string("emails/sign_in_code.txt", context)
        subject = _("Your sign-in code: {code}").format(code=context["code"])
    reply_to = "" if re.search(CONTROL_CHARACTERS, operator.email) else operator.email
    sender = formataddr(
        (" ".join(re.sub(CONTROL_CHARACTERS, " ", operator.name).split()), settings.DEFAULT_FROM_EMAIL)
    )
    message = EmailMessage(subject, text, sender, [row.email], reply_to=[reply_to] if reply_to else None)
    # Once per code, however often the job runs; the key names the row, never the code (the subject has it).
    return delivery.once(f"sign-in-code:{row.pk}", message.send)
