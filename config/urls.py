from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import TemplateView
from drf_spectacular.views import SpectacularSwaggerSplitView

from accounting.admin.export import accounting_export_view
from accounting.admin.revenue import revenue_view
from apikit.catalog import CatalogApi
from apikit.document import DocumentView
from booking.api import AvailabilityApi
from config import views
from dispatch import job_page
from dispatch.api import ChangeQuotesApi, ChangesApi
from jobqueue import views as jobs_views
from mcp_endpoint.urls import urlpatterns as agent_endpoint
from operator_profile import legal
from operator_profile import views as company
from payments.api import (
    BookingApi,
    BookingListApi,
    CancelBookingApi,
    CheckoutApi,
    CheckoutLegacyApi,
    PaymentIntentLegacyApi,
    SessionDataLegacyApi,
)
from payments.webhooks import stripe_webhook
from places.api import (
    CalculateDistanceLegacyApi,
    DistanceApi,
    GoogleRatingLegacyApi,
    PlacesApi,
    PlacesAutocompleteLegacyApi,
    RatingApi,
)
from pricing.api import ExtrasApi, PriceApi
from quote_requests.api import QuoteRequestApi, QuoteRequestsApi
from web import booking_page, my_data, offer_page
from web import views as booking_pages
from web.api import PageCheckoutApi, PageQuoteApi, PageQuoteRequestApi
from web.apps import PAGE_CHECKOUT_PATH, PAGE_QUOTE_PATH, PAGE_QUOTE_REQUEST_PATH
from webhooks.api import EndpointApi, EndpointDeliveriesApi, EndpointResumeApi, EndpointsApi

v1 = [
    path("api/v1", CatalogApi.as_view(), name="v1-catalog"),
    path("api/v1/price", PriceApi.as_view(), name="v1-price"),
    path("api/v1/extras", ExtrasApi.as_view(), name="v1-extras"),
    path("api/v1/availability", AvailabilityApi.as_view(), name="v1-availability"),
    path("api/v1/distance", DistanceApi.as_view(), name="v1-distance"),
    path("api/v1/places", PlacesApi.as_view(), name="v1-places"),
    path("api/v1/rating", RatingApi.as_view(), name="v1-rating"),
    path("api/v1/checkout", CheckoutApi.as_view(), name="v1-checkout"),
    path("api/v1/bookings", BookingListApi.as_view(), name="v1-bookings"),
    path("api/v1/bookings/<str:reference>", BookingApi.as_view(), name="v1-booking"),
    path("api/v1/bookings/<str:reference>/cancel", CancelBookingApi.as_view(), name="v1-cancel-booking"),
    path("api/v1/bookings/<str:reference>/change-quotes", ChangeQuotesApi.as_view(), name="v1-change-quotes"),
    path("api/v1/bookings/<str:reference>/changes", ChangesApi.as_view(), name="v1-changes"),
    path("api/v1/quote-requests", QuoteRequestsApi.as_view(), name="v1-quote-requests"),
    path("api/v1/quote-requests/<str:reference>", QuoteRequestApi.as_view(), name="v1-quote-request"),
    path("api/v1/webhook-endpoints", EndpointsApi.as_view(), name="v1-webhook-endpoints"),
    path("api/v1/webhook-endpoints/<str:endpoint_id>", EndpointApi.as_view(), name="v1-webhook-endpoint"),
    path(
        "api/v1/webhook-endpoints/<str:endpoint_id>/resume",
        EndpointResumeApi.as_view(),
        name="v1-webhook-endpoint-resume",
    ),
    path(
        "api/v1/webhook-endpoints/<str:endpoint_id>/deliveries",
        EndpointDeliveriesApi.as_view(),
        name="v1-webhook-endpoint-deliveries",
    ),
]

legacy = [
    path("api/calculate-distance", CalculateDistanceLegacyApi.as_view(), name="calculate-distance"),
    path("api/places-autocomplete", PlacesAutocompleteLegacyApi.as_view(), name="places-autocomplete"),
    path("api/google-rating", GoogleRatingLegacyApi.as_view(), name="google-rating"),
    path("api/create-checkout-session", CheckoutLegacyApi.as_view(), name="create-checkout-session"),
    path("api/create-payment-intent", PaymentIntentLegacyApi.as_view(), name="create-payment-intent"),
    path("api/get-session-data", SessionDataLegacyApi.as_view(), name="get-session-data"),
    path("api/payments/stripe/webhook", stripe_webhook, name="stripe-webhook"),
]

pages = [
    path("", booking_page.booking_page, name="home"),  # in the browser's language; /de/ and /en/ below
    path("embed/form", booking_page.embed_form, name="embed-form"),
    path(PAGE_CHECKOUT_PATH.lstrip("/"), PageCheckoutApi.as_view(), name="page-checkout"),
    path(PAGE_QUOTE_PATH.lstrip("/"), PageQuoteApi.as_view(), name="page-quote"),
    path(PAGE_QUOTE_REQUEST_PATH.lstrip("/"), PageQuoteRequestApi.as_view(), name="page-quote-request"),
    path("developers", TemplateView.as_view(template_name="developers.html"), name="developers"),
    path("company/brand.css", company.brand_stylesheet, name="brand-stylesheet"),
    path("company/logo", company.logo, name="logo"),
    path("favicon.ico", company.favicon, name="favicon"),
    path("booking/success", booking_pages.success_page, name="booking-success"),
    path("booking/cancel", booking_pages.cancel_page, name="booking-cancel"),
    path("booking/manage", booking_pages.manage_page, name="booking-manage"),
    path("my-data", my_data.my_data_page, name="my-data"),
    path("my-data/copy.json", my_data.my_data_copy, name="my-data-copy"),
    path("booking/account", booking_pages.account_page, name="booking-account"),
    path("booking/offer", offer_page.offer_page, name="quote-offer"),
    path("booking/manage/ride", booking_pages.manage_ride_panel, name="booking-manage-ride"),
    path("booking/manage/ride.ics", booking_pages.manage_ride_calendar, name="booking-manage-calendar"),
    path("booking/manage/invoice.pdf", booking_pages.manage_invoice, name="booking-manage-invoice"),
    path("booking/sandbox/<str:session_id>", booking_pages.sandbox_checkout, name="sandbox-checkout"),
]

# The chauffeur's job page, opened by the key in a job link (dispatch/job_links.py). With a reference only
# the key's own job opens (addresses its page gave out before); any other answers "not found".
chauffeur_jobs = [
    path("chauffeur/job/<str:key>/", job_page.job_page, name="chauffeur-job"),
    path("chauffeur/job/<str:key>/calendar.ics", job_page.job_calendar, name="chauffeur-job-calendar"),
    path("chauffeur/job/<str:key>/sharing", job_page.job_sharing, name="chauffeur-job-sharing"),
    path("chauffeur/job/<str:key>/position", job_page.job_position, name="chauffeur-job-position"),
    path("chauffeur/job/<str:key>/<str:reference>/", job_page.job_page, name="chauffeur-job-by-reference"),
    path(
        "chauffeur/job/<str:key>/<str:reference>/calendar.ics",
        job_page.job_calendar,
        name="chauffeur-job-calendar-by-reference",
    ),
]

# Django tries the patterns in turn: the API's busy routes first.
urlpatterns = [
    *agent_endpoint,  # /api/mcp, spread rather than included: no nested resolver on every call
    *v1,
    path("healthz", views.healthz, name="healthz"),
    path("healthz/worker", jobs_views.worker_health, name="healthz-worker"),
    path("openapi.json", DocumentView.as_view(), name="openapi"),
    # The split view serves Swagger UI's start-up script as a file: no inline script under the CSP.
    path("api/docs", SpectacularSwaggerSplitView.as_view(url_name="openapi"), name="api-docs"),
    *legacy,
    *pages,
    *chauffeur_jobs,
    path("", include("oauth.urls")),  # the authorization server (docs/agents/oauth.md)
    path("", include("oauth.discovery_urls")),  # /.well-known/oauth-…, /oauth/register
    # Unknown API paths answer in their surface's error format (problem+json under /api/v1).
    re_path(r"^api(?:/.*)?$", views.unknown_api_path),
    # The accountant's pages (accounting/admin/), no model admin hosts them: before the admin's own URLs.
    path("admin/revenue/", admin.site.admin_view(revenue_view), name="admin-revenue"),
    path(
        "admin/accounting-export/",
        admin.site.admin_view(accounting_export_view),
        name="admin-accounting-export",
    ),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the admin's language switch
    *i18n_patterns(  # /de/, /en/ …
        path("", booking_page.booking_page, name="booking-page"),
        *[path(kind, company.legal_page, {"kind": kind}, name=kind) for kind in legal.Kind.values],
    ),
]

handler400 = "config.views.bad_request"
handler500 = "config.views.server_error"
