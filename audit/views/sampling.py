"""Placeholder: being written."""

from django.http import HttpResponse


def audit_sample(request, *args, **kwargs):
    return HttpResponse(status=501)
