"""Placeholder: being written."""

from django.http import HttpResponse


def item_history(request, *args, **kwargs):
    return HttpResponse(status=501)
