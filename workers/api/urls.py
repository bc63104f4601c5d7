"""Judge endpoints, mounted inside the `api` namespace (see annotation/api/urls.py)."""

from django.urls import path

from .judges import (
    JudgeConfigDetailView,
    JudgeConfigListView,
    JudgeRunCancelView,
    JudgeRunDetailView,
    JudgeRunListView,
)

P = "projects/<slug:slug>/"

urlpatterns = [
    path(P + "judges/", JudgeConfigListView.as_view(), name="judge-list"),
    path(P + "judges/<int:config_id>/", JudgeConfigDetailView.as_view(), name="judge-detail"),
    path(P + "judge-runs/", JudgeRunListView.as_view(), name="judge-run-list"),
    path(P + "judge-runs/<int:run_id>/", JudgeRunDetailView.as_view(), name="judge-run-detail"),
    path(P + "judge-runs/<int:run_id>/cancel/", JudgeRunCancelView.as_view(), name="judge-run-cancel"),
]
