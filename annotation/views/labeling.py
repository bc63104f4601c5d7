"""Placeholder: being written."""

from django.http import HttpResponse


def queue_next(request, *args, **kwargs):
    return HttpResponse(status=501)


def label_item(request, *args, **kwargs):
    return HttpResponse(status=501)


def skip_item(request, *args, **kwargs):
    return HttpResponse(status=501)


def message_body(request, *args, **kwargs):
    return HttpResponse(status=501)
