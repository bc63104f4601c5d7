"""Placeholder: being written."""

from django.http import HttpResponse


def audit_dashboard(request, *args, **kwargs):
    return HttpResponse(status=501)


def audit_table_csv(request, *args, **kwargs):
    return HttpResponse(status=501)
