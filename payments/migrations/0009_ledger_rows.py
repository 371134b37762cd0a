"""The ledger's rows from what bookings, price differences and refunds kept before it: a booking's own payment
is what it received less its paid price differences; each paid price difference is its own payment, an
unpaid payment page a payment waiting (or, withdrawn, cancelled); each refund goes back to a payment as the
code did then (its payment intent, a price difference's, else the booking's own; a refund outside the
provider to the newest payment still holding all of it, else the newest holding any: an old row is not
split). Backwards, the booking's fields are rebuilt from the rows."""

from django.db import migrations


def payments_of(booking, Payment, PaymentShare, Surcharge):
    """The booking's payments (oldest first): its paid price differences, then its own price's."""
    made = []
    paid = list(Surcharge.objects.filter(booking=booking, paid_at__isnull=False).order_by("paid_at", "pk"))
    for surcharge in paid:
        online = surcharge.method == "provider"
        made.append(
            record(
                booking,
                surcharge.amount_cents,
                Payment,
                PaymentShare,
                kind="link" if online else "staff",
                provider=booking.payment_provider if online else "",
                session=surcharge.provider_session_id if online else None,
                intent=surcharge.payment_intent_id,
                surcharge=surcharge,
                by=None if online else surcharge.created_by_id,
                at=surcharge.paid_at,
            )
        )
    own = booking.received_cents - sum(surcharge.amount_cents for surcharge in paid)
    if own > 0:
        checkout = booking.payment_method == "checkout"
        made.append(
            record(
                booking,
                own,
                Payment,
                PaymentShare,
                kind="checkout" if checkout else "staff",
                provider=booking.payment_provider if checkout else "",
                session=booking.provider_session_id if checkout else None,
                intent=booking.payment_intent_id,
                surcharge=None,
                by=booking.marked_paid_by_id,
                at=booking.paid_at or booking.updated_at,
            )
        )
    return sorted(made, key=lambda payment: (payment.received_at, payment.pk))


def record(booking, cents, Payment, PaymentShare, *, kind, provider, session, intent, surcharge, by, at):
    payment = Payment.objects.create(
        kind=kind,
        state="received",
        provider=provider,
        provider_session_id=session,
        payment_intent_id=intent,
        amount_cents=cents,
        currency=booking.currency,
        surcharge=surcharge,
        recorded_by_id=by,
        received_at=at,
    )
    PaymentShare.objects.create(payment=payment, booking=booking, amount_cents=cents)
    return payment


def refunds_to_payments(booking, made, Refund):
    """Each refund of the booking, in the order they were made, to the payment it went back to."""
    held = {payment.pk: payment.amount_cents for payment in made}
    by_intent = {payment.payment_intent_id: payment for payment in made if payment.payment_intent_id}
    own = next((payment for payment in reversed(made) if payment.surcharge_id is None), None)
    by_surcharge = {payment.surcharge_id: payment for payment in made if payment.surcharge_id}
    for refund in Refund.objects.filter(booking=booking).order_by("created_at", "pk"):
        payment = None
        if refund.payment_intent_id:
            payment = by_intent.get(refund.payment_intent_id)
        elif refund.surcharge_id:
            payment = by_surcharge.get(refund.surcharge_id)
        elif refund.method == "provider":
            payment = own  # before payments were told apart: the booking's own
        else:
            newest = [p for p in reversed(made) if held[p.pk] > 0]
            payment = next((p for p in newest if held[p.pk] >= refund.amount_cents), None) or next(
                iter(newest), None
            )
        if payment is None:
            continue
        if refund.status in ("pending", "requires_action", "succeeded"):
            held[payment.pk] -= refund.amount_cents
        refund.payment = payment
        refund.save(update_fields=["payment"])


def links_waiting(Payment, PaymentShare, Surcharge):
    """Price differences' payment pages not paid: waiting for the money, or withdrawn."""
    for surcharge in Surcharge.objects.filter(paid_at__isnull=True, provider_session_id__isnull=False):
        payment = Payment.objects.create(
            kind="link",
            state="pending" if surcharge.status == "pending" else "cancelled",
            provider=surcharge.booking.payment_provider,
            provider_session_id=surcharge.provider_session_id,
            amount_cents=surcharge.amount_cents,
            currency=surcharge.currency,
            surcharge=surcharge,
        )
        PaymentShare.objects.create(
            payment=payment, booking=surcharge.booking, amount_cents=surcharge.amount_cents
        )


def forwards(apps, schema_editor):
    Booking = apps.get_model("booking", "Booking")
    Payment, PaymentShare = apps.get_model("payments", "Payment"), apps.get_model("payments", "PaymentShare")
    Surcharge, Refund = apps.get_model("payments", "Surcharge"), apps.get_model("payments", "Refund")
    paid_differences = Surcharge.objects.filter(paid_at__isnull=False).values("booking_id")
    money = Booking.objects.filter(received_cents__gt=0) | Booking.objects.filter(pk__in=paid_differences)
    for booking in money.order_by("pk"):
        made = payments_of(booking, Payment, PaymentShare, Surcharge)
        refunds_to_payments(booking, made, Refund)
    links_waiting(Payment, PaymentShare, Surcharge)


def backwards(apps, schema_editor):
    """The booking's fields again from its shares: what it received, its own payment's intent and who
    marked it paid."""
    Booking = apps.get_model("booking", "Booking")
    PaymentShare = apps.get_model("payments", "PaymentShare")
    for booking in Booking.objects.filter(payment_shares__isnull=False).distinct().order_by("pk"):
        shares = PaymentShare.objects.filter(booking=booking, payment__state="received").select_related(
            "payment"
        )
        booking.received_cents = sum(share.amount_cents for share in shares)
        own = [share.payment for share in shares if share.payment.surcharge_id is None]
        if own:
            newest = max(own, key=lambda payment: (payment.received_at, payment.pk))
            booking.payment_intent_id = newest.payment_intent_id
            booking.marked_paid_by_id = newest.recorded_by_id if newest.kind == "staff" else None
        booking.save(update_fields=["received_cents", "payment_intent_id", "marked_paid_by"])
    Refund = apps.get_model("payments", "Refund")
    Refund.objects.update(payment=None)
    PaymentShare.objects.all().delete()
    apps.get_model("payments", "Payment").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0008_ledger"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
