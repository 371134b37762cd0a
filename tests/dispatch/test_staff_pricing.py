"""What staff may do beyond the tariff and the lead time, each on purpose and on the record: a price set by
hand with its reason (a permission of its own), a ride moved at short notice, a past ride recorded; and the
texts they type that land on the invoice kept on one line."""

import pytest

from booking.models import Booking
from tests.company.test_operator_profile import ONE_LINE
from tests.dispatch.test_phone_booking import ADD, form

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]


@pytest.mark.parametrize("field", ["origin", "destination", "name", "flight_number"])
def test_a_line_break_in_what_the_invoice_prints_is_refused_booking_nothing(admin_client, field):
    response = admin_client.post(ADD, {**form(**{field: "OS 1\r\nX"}), "_book": "Book"})
    assert response.status_code == 200
    assert ONE_LINE in response.context["form"].errors[field]
    assert not Booking.objects.exists()
