"""Audit endpoints, mounted inside the `api` namespace (see annotation/api/urls.py)."""

from django.urls import path

from .agreement import AgreementView
from .judges import JudgeReportView
from .sampling import AuditSampleListView

P = "projects/<slug:slug>/"

urlpatterns = [
    path(P + "agreement/", AgreementView.as_view(), name="agreement"),
    path(P + "judges/report/", JudgeReportView.as_view(), name="judge-report"),
    path(P + "audit-samples/", AuditSampleListView.as_view(), name="audit-sample-list"),
]
