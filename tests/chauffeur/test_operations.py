"""Each operation class makes DRF's per-request helpers once (chauffeur/api/operations.py): what it uses is
what DRF would make for that class, never what another class made first."""

from django.urls import get_resolver

from chauffeur.api.operations import Operation

MADE_ONCE = {
    "get_renderers": "renderer_classes",
    "get_parsers": "parser_classes",
    "get_authenticators": "authentication_classes",
    "get_permissions": "permission_classes",
    "get_throttles": "throttle_classes",
}


def operations() -> list[type[Operation]]:
    found = {}
    for pattern in get_resolver().url_patterns:
        view = getattr(getattr(pattern, "callback", None), "view_class", None)
        if view is not None and issubclass(view, Operation):
            found[view.__name__] = view
    return list(found.values())


def test_every_operation_uses_the_helpers_drf_would_make_for_it():
    views = operations()
    assert len(views) >= 10
    assert len({tuple(view.permission_classes) for view in views}) > 1  # classes differ: a mix-up would show
    for view_class in [*views, *reversed(views)]:  # each order: the first class to ask must not decide
        view = view_class()
        for method, declared in MADE_ONCE.items():
            made = getattr(view, method)()
            assert [type(helper) for helper in made] == list(getattr(view_class, declared)), (
                view_class,
                method,
            )
            assert getattr(view_class(), method)() is made  # made once per class
        assert type(view.get_content_negotiator()) is view_class.content_negotiation_class
