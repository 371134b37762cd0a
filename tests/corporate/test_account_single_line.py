"""A company account's name and address print as the buyer block of its collective invoice: each refuses a
line break or control character with a clear error, saving nothing."""

import pytest

from corporate.models import CompanyAccount
from tests.operator_profile.test_operator_profile import ONE_LINE

pytestmark = pytest.mark.django_db
ADD = "/admin/business/companyaccount/add/"
ACCOUNT = {
    "name": "Initech AG",
    "street_address": "Ring 2",
    "postcode": "1010",
    "city": "Wien",
    "country": "AT",
    "vat_id": "",
    "billing_email": "ap@initech.example",
    "payment_terms_days": "14",
    "language": "de",
    "active": "on",
    "bookers": "@initech.example",
}


@pytest.mark.parametrize("field", ["name", "street_address", "postcode", "city", "vat_id"])
@pytest.mark.parametrize("value", ["AT1\r\nX", "AT1\u2028X", "AT1\x07X"])
def test_a_line_break_in_the_name_or_address_is_refused_saving_nothing(admin_client, field, value):
    response = admin_client.post(ADD, {**ACCOUNT, field: value}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    assert ONE_LINE in response.context["adminform"].form.errors[field]
    assert not CompanyAccount.objects.exists()


def test_the_account_on_one_line_is_saved(admin_client):
    assert admin_client.post(ADD, ACCOUNT).status_code == 302
    assert CompanyAccount.objects.get().street_address == "Ring 2"
