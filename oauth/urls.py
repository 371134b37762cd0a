from django.urls import path

from oauth import assistants, endpoints, sign_in, views

urlpatterns = [
    path("oauth/authorize", views.authorize, name="oauth-authorize"),
    path("oauth/consent", views.consent, name="oauth-consent"),
    path("oauth/sign-in", sign_in.sign_in_page, name="oauth-sign-in"),  # a traveller signs in to consent
    path("oauth/assistants", assistants.assistants_page, name="oauth-assistants"),  # a traveller's own
    path("oauth/token", endpoints.token, name="oauth-token"),
    path("oauth/revoke", endpoints.revoke, name="oauth-revoke"),
]
