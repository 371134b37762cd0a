"""The project's URLs plus two views that crash, to prove a 500 never leaks internals."""

from django.urls import path
from rest_framework.views import APIView

from config.urls import handler500  # noqa: F401  (handler500 is used by Django)
from config.urls import urlpatterns as project_urls


class CrashingApi(APIView):
    def get(self, request):
        raise RuntimeError("secret database password is hunter2")


def crashing_view(request):
    raise RuntimeError("secret database password is hunter2")


urlpatterns = [
    path("api/v1/crash", CrashingApi.as_view()),
    path("api/crash", CrashingApi.as_view()),
    path("api/plain-crash", crashing_view),
    *project_urls,
]
